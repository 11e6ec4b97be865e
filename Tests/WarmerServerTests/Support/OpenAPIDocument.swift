import Foundation
import TestSupport
import Yams

/// docs/openapi.yaml, the contract `warmer serve` is tested against.
struct OpenAPIDocument {
    /// The file's text.
    let text: String
    /// `METHOD /path` of every operation, paths as the document writes them.
    let operations: Set<String>

    /// The repository's docs/openapi.yaml.
    static func load() throws -> OpenAPIDocument {
        let text = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        guard let document = try Yams.load(yaml: text) as? [String: Any],
              let paths = document["paths"] as? [String: [String: Any]] else {
            throw TestHarnessError("docs/openapi.yaml has no paths")
        }
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        let operations = paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } }
        return OpenAPIDocument(text: text, operations: Set(operations))
    }
}
