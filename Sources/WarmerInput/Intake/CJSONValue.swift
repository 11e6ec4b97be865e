/// A JSON value as Redis's Lua `cjson.decode` gives it to a script.
///
/// Strings are bytes, as Lua strings are (cjson passes invalid UTF-8
/// through); numbers are doubles; `null` is `cjson.null`, which is not
/// `nil`: a field set to `null` is present. Arrays and objects are both Lua
/// tables; an object keeps the last value of a repeated key.
public enum CJSONValue: Sendable, Hashable {
    /// A string, as UTF-8 bytes (`\u` escapes decoded, anything else as sent).
    case string([UInt8])
    /// A number.
    case number(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// `null` (`cjson.null`).
    case null
    /// An array: a table with the keys 1…count.
    case array([CJSONValue])
    /// An object: a table with string keys.
    case object([[UInt8]: CJSONValue])

    /// `value.name` in Lua: the value of an object's key `name`; `nil` when
    /// absent and for anything but an object (an array has integer keys only).
    public func field(_ name: String) -> CJSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[Array(name.utf8)]
    }

    /// Whether the value is a Lua table (an array or an object).
    public var isTable: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }
}
