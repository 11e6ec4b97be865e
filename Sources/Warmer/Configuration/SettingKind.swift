import Foundation
import Configuration

/// What a setting holds, which decides how its text (a flag, an environment
/// variable) is read and which type it is asked for in a config file.
enum SettingKind: Sendable, Hashable {
    /// Any text: a URL, a path, a name, one of a few words.
    case text
    /// An integer, e.g. `8`.
    case wholeNumber
    /// A decimal number, e.g. `0.5` or `60`.
    case number
    /// On or off: `true`/`false`, `yes`/`no` or `1`/`0`.
    case `switch`
    /// Several texts: a repeated flag, a YAML or JSON list, or an
    /// environment variable with one item per line.
    case list

    /// The type a `ConfigReader` is asked for.
    var configType: ConfigType {
        switch self {
        case .text: .string
        case .wholeNumber: .int
        case .number: .double
        case .switch: .bool
        case .list: .stringArray
        }
    }

    /// What one value of this kind is, in an error message ("is not a whole number").
    var expectation: String {
        switch self {
        case .text: "text"
        case .wholeNumber: "a whole number"
        case .number: "a number"
        case .switch: "true or false (yes/no, 1/0)"
        case .list: "a list"
        }
    }

    /// Reads `texts` (one for a single value; any number for a list) as
    /// this kind; `nil` when one of them is not of this kind.
    func content(parsing texts: [String]) -> ConfigContent? {
        if self == .list { return .stringArray(texts) }
        guard let text = texts.last?.trimmingCharacters(in: .whitespaces) else { return nil }
        switch self {
        case .text: return .string(texts.last ?? "")
        case .wholeNumber: return Int(text).map(ConfigContent.int)
        case .number: return Double(text).map(ConfigContent.double)
        case .switch: return Self.switchValue(text).map(ConfigContent.bool)
        case .list: return nil
        }
    }

    /// `true`, `yes`, `1` (and their opposites) in any case, as the
    /// environment provider reads them.
    static func switchValue(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }
}
