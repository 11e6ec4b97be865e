/// Where a setting's value came from, as error messages and
/// `warmer settings` name it.
enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    /// A command-line flag (`--concurrency`).
    case flag(String)
    /// An environment variable (`WARMER_CONCURRENCY`).
    case environment(String)
    /// A key of the config file.
    case configFile(path: String, key: String)
    /// No source gave it: the catalogue's default.
    case builtInDefault

    var description: String {
        switch self {
        case .flag(let flag): "flag \(flag)"
        case .environment(let name): "environment variable \(name)"
        case .configFile(let path, let key): "config file \(path) (key \(key))"
        case .builtInDefault: "the built-in default"
        }
    }
}
