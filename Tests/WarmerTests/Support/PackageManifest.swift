import Foundation

/// Reads Package.swift's targets and the local targets each depends on,
/// from the text: `swift package dump-package` would wait for the lock
/// `swift test` holds on .build. Products of other packages are left out;
/// the fuzzing section at the end (a different package) is ignored.
enum PackageManifest {
    /// Target name → names of the package's own targets it depends on.
    static func targetDependencies(in manifest: String) -> [String: Set<String>] {
        let main = manifest.components(separatedBy: "// MARK: Fuzzing").first ?? manifest
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([A-Za-z0-9_]+)"/
        let matches = main.matches(of: declaration)
        var graph: [String: Set<String>] = [:]
        for (index, match) in matches.enumerated() {
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : main.endIndex
            var body = String(main[match.range.upperBound..<end])
            body = body.replacing(/\.product\([^)]*\)/, with: "")
            var dependencies: Set<String> = []
            if let list = body.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/) {
                for name in list.1.matches(of: /"([A-Za-z0-9_]+)"/) { dependencies.insert(String(name.1)) }
            }
            graph[String(match.1)] = dependencies
        }
        return graph
    }

    /// Target name → names of the products of other packages it declares
    /// (`.product(name: "NIOCore", package: "swift-nio")`).
    static func productDependencies(in manifest: String) -> [String: Set<String>] {
        let main = manifest.components(separatedBy: "// MARK: Fuzzing").first ?? manifest
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary|plugin)\(\s*name:\s*"([A-Za-z0-9_]+)"/
        let matches = main.matches(of: declaration)
        var products: [String: Set<String>] = [:]
        for (index, match) in matches.enumerated() {
            let end = index + 1 < matches.count ? matches[index + 1].range.lowerBound : main.endIndex
            let body = main[match.range.upperBound..<end]
            products[String(match.1)] = Set(body.matches(of: /\.product\(\s*name:\s*"([A-Za-z0-9_]+)"/).map { String($0.1) })
        }
        return products
    }
}
