import Configuration
import Foundation
import Yams

/// The `--config` file (or `WARMER_CONFIG`): YAML or JSON, by its
/// extension, holding settings by their names at the top level.
///
/// Loading it refuses a file that cannot be read or parsed, and any key
/// that is not a setting, naming it.
struct ConfigFile: Sendable {
    let path: String
    /// The file as a swift-configuration provider.
    let provider: any ConfigProvider

    /// Reads, checks and parses the file at `path`.
    static func load(path: String) async throws(SettingError) -> ConfigFile {
        let isJSON: Bool
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "yaml", "yml": isJSON = false
        case "json": isJSON = true
        default: throw SettingError("config file \(path) must end in .yaml, .yml or .json")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw SettingError("config file \(path) does not exist") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SettingError("cannot read config file \(path): \((error as NSError).localizedDescription)")
        }
        let keys = try isJSON ? jsonKeys(data, path: path) : yamlKeys(data, path: path)
        let known = Set(Settings.all.filter { !$0.info.isFlagAndEnvironmentOnly }.map(\.info.configKey))
        let unknown = keys.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw SettingError("unknown setting\(unknown.count == 1 ? "" : "s") in config file \(path): "
                + unknown.joined(separator: ", ") + " (the settings are listed in docs/configuration.md and by `warmer settings`)")
        }

        let secrets = Set(Settings.all.filter(\.info.isSecret).map(\.info.configKey))
        do {
            let provider: any ConfigProvider = if isJSON {
                try await FileProvider<JSONSnapshot>(
                    parsingOptions: .init(secretsSpecifier: .specific(secrets)), filePath: .init(path))
            } else {
                try await FileProvider<YAMLSnapshot>(
                    parsingOptions: .init(secretsSpecifier: .specific(secrets)), filePath: .init(path))
            }
            return ConfigFile(path: path, provider: provider)
        } catch {
            throw SettingError("config file \(path) is not valid \(isJSON ? "JSON" : "YAML"): \(Self.reason(error))")
        }
    }

    /// The file's keys, nested ones as `outer.inner`, in file order.
    private static func yamlKeys(_ data: Data, path: String) throws(SettingError) -> [String] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: String(decoding: data, as: UTF8.self))
        } catch {
            throw SettingError("config file \(path) is not valid YAML: \(Self.reason(error))")
        }
        guard let root else { return [] } // an empty file sets nothing
        guard let mapping = root.mapping else { throw SettingError("config file \(path) must hold a mapping of settings") }
        func keys(_ mapping: Node.Mapping, prefix: String) -> [String] {
            mapping.flatMap { key, value -> [String] in
                let name = prefix + (key.string ?? "\(key)")
                return value.mapping.map { keys($0, prefix: name + ".") } ?? [name]
            }
        }
        return keys(mapping, prefix: "")
    }

    private static func jsonKeys(_ data: Data, path: String) throws(SettingError) -> [String] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw SettingError("config file \(path) is not valid JSON: \(Self.reason(error))")
        }
        guard let dictionary = object as? [String: Any] else { throw SettingError("config file \(path) must hold an object of settings") }
        func keys(_ dictionary: [String: Any], prefix: String) -> [String] {
            dictionary.keys.sorted().flatMap { key -> [String] in
                (dictionary[key] as? [String: Any]).map { keys($0, prefix: prefix + key + ".") } ?? [prefix + key]
            }
        }
        return keys(dictionary, prefix: "")
    }

    /// An error as one line.
    private static func reason(_ error: any Error) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
