import Foundation
import Yams

/// The files in deploy/, read the way their tools read them: YAML documents,
/// the worker's command lines in each, the `WARMER_*` names they mention.
enum DeployFiles {
    /// The repository's deploy/ folder.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy")

    /// docs/configuration.md, the settings table.
    static let settingsTable = folder.deletingLastPathComponent().appendingPathComponent("docs/configuration.md")

    /// Every regular file under deploy/, sorted by path.
    static func all() throws -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw HarnessError("cannot list \(folder.path)")
        }
        return try enumerator.compactMap { $0 as? URL }
            .filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
            .sorted { $0.path < $1.path }
    }

    /// The YAML files under deploy/.
    static func yamlFiles() throws -> [URL] {
        try all().filter { ["yaml", "yml"].contains($0.pathExtension) }
    }

    /// A file's path relative to deploy/, for messages.
    static func name(_ file: URL) -> String {
        String(file.path.dropFirst(folder.path.count + 1))
    }

    /// The file's text.
    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Every document of a YAML file, parsed; throws on a syntax error.
    static func documents(_ file: URL) throws -> [Any] {
        var sequence = try Yams.load_all(yaml: String(contentsOf: file, encoding: .utf8))
        var documents: [Any] = []
        while let document = sequence.next() { documents.append(document) }
        if let error = sequence.error { throw error }
        return documents
    }

    /// The Kubernetes objects of the YAML files in deploy/kubernetes/.
    static func kubernetesObjects() throws -> [[String: Any]] {
        try yamlFiles().filter { name($0).hasPrefix("kubernetes/") }.flatMap { try documents($0) }.compactMap { $0 as? [String: Any] }
    }

    /// The Kubernetes object of `kind` named `name`.
    static func object(kind: String, name: String) throws -> [String: Any] {
        guard let object = try kubernetesObjects().first(where: { $0["kind"] as? String == kind && $0.string("metadata.name") == name }) else {
            throw HarnessError("no \(kind) \(name) in deploy/kubernetes")
        }
        return object
    }

    /// Every `warmer worker` command line in deploy/ (see `commandLines(of:)`).
    static func workerCommandLines() throws -> [(file: String, arguments: [String])] {
        try commandLines(of: "worker")
    }

    /// Every `warmer serve` command line in deploy/ (see `commandLines(of:)`).
    static func serveCommandLines() throws -> [(file: String, arguments: [String])] {
        try commandLines(of: "serve")
    }

    /// Every `warmer SUBCOMMAND` command line in deploy/: the Kubernetes
    /// containers' command and args, compose services' command, the
    /// Dockerfile's CMD and the systemd units' ExecStart, each with the
    /// arguments after the subcommand and the file kind it comes from
    /// (`kubernetes`, `compose.yaml`, `Dockerfile`, `systemd`).
    static func commandLines(of subcommand: String) throws -> [(file: String, arguments: [String])] {
        var lines: [(String, [String])] = []
        for object in try kubernetesObjects() where object["kind"] as? String == "Deployment" {
            for container in object.objects("spec.template.spec.containers") {
                let words = (container.list("command") + container.list("args")).map { scalar($0) }
                if let start = words.firstIndex(of: subcommand) { lines.append(("kubernetes", Array(words[(start + 1)...]))) }
            }
        }
        for service in try composeServices().values {
            let words = service.list("command").map { scalar($0) }
            if words.first == subcommand { lines.append(("compose.yaml", Array(words.dropFirst()))) }
        }
        for line in try text("Dockerfile").split(separator: "\n") where line.hasPrefix("CMD ") {
            let words = try JSONDecoder().decode([String].self, from: Data(line.dropFirst(4).utf8))
            if words.first == subcommand { lines.append(("Dockerfile", Array(words.dropFirst()))) }
        }
        for unit in try all() where name(unit).hasPrefix("systemd/") && unit.pathExtension == "service" {
            for line in try String(contentsOf: unit, encoding: .utf8).split(separator: "\n") where line.hasPrefix("ExecStart=") {
                let words = line.split(separator: " ").map(String.init)
                if let start = words.firstIndex(of: subcommand) { lines.append(("systemd", Array(words[(start + 1)...]))) }
            }
        }
        return lines
    }

    /// compose.yaml's services by name.
    static func composeServices() throws -> [String: [String: Any]] {
        let compose = try documents(folder.appendingPathComponent("compose.yaml")).first as? [String: Any]
        return (compose?["services"] as? [String: Any] ?? [:]).compactMapValues { $0 as? [String: Any] }
    }

    /// The `NAME=VALUE` lines of a systemd unit or environment file: its
    /// `Environment=` settings, or the file's own lines (comments skipped).
    static func environmentAssignments(_ relativePath: String) throws -> [String: String] {
        var assignments: [String: String] = [:]
        for line in try text(relativePath).split(separator: "\n") where !line.hasPrefix("#") {
            let assignment = line.hasPrefix("Environment=") ? line.dropFirst("Environment=".count) : line
            guard let equals = assignment.firstIndex(of: "="), assignment.hasPrefix("WARMER_") else { continue }
            assignments[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        return assignments
    }

    /// Every `WARMER_*` name written anywhere in deploy/ (comments included).
    static func environmentNames() throws -> [String: Set<String>] {
        var names: [String: Set<String>] = [:]
        let pattern = try Regex("WARMER_[A-Z0-9_]+")
        for file in try all() {
            guard let content = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in content.matches(of: pattern) { names[String(content[match.range]), default: []].insert(name(file)) }
        }
        return names
    }

    /// The value after `flag` in `arguments` (`--flag VALUE` or `--flag=VALUE`).
    static func value(of flag: String, in arguments: [String]) -> String? {
        for (index, word) in arguments.enumerated() {
            if word == flag, index + 1 < arguments.count { return arguments[index + 1] }
            if word.hasPrefix(flag + "=") { return String(word.dropFirst(flag.count + 1)) }
        }
        return nil
    }

    /// A YAML scalar as text (`8080` and `"8080"` alike).
    static func scalar(_ value: Any) -> String {
        "\(value)"
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a dotted path (`spec.template.spec`).
    func value(_ path: String) -> Any? {
        var current: Any? = self
        for part in path.split(separator: ".") {
            current = (current as? [String: Any])?[String(part)]
        }
        return current
    }

    /// The text at a dotted path, whatever its YAML type.
    func string(_ path: String) -> String? {
        value(path).map(DeployFiles.scalar)
    }

    /// The list at a dotted path (empty when absent), with mappings as dictionaries.
    func list(_ path: String) -> [Any] {
        value(path) as? [Any] ?? []
    }

    /// The mappings of the list at a dotted path.
    func objects(_ path: String) -> [[String: Any]] {
        list(path).compactMap { $0 as? [String: Any] }
    }
}
