/// A reply from Redis (RESP2).
public enum RedisReply: Sendable, Equatable {
    /// A bulk or simple string.
    case string(String)
    /// An integer.
    case integer(Int)
    /// An array of replies.
    case array([RedisReply])
    /// A nil bulk string or nil array.
    case null
    /// An error reply, e.g. `ERR unknown command`.
    case error(String)

    /// The reply as a string, when it is a string or an integer.
    public var string: String? {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// The reply as an integer, when it is one or a string holding one.
    public var integer: Int? {
        switch self {
        case .integer(let value): value
        case .string(let value): Int(value)
        default: nil
        }
    }

    /// The elements of an array reply; empty for anything else.
    public var array: [RedisReply] {
        if case .array(let elements) = self { return elements }
        return []
    }

    /// A flat array of field/value strings (HGETALL, stream entries) as a dictionary.
    public var fieldDictionary: [String: String] {
        let items = array
        var result: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let field = items[index].string, let value = items[index + 1].string { result[field] = value }
            index += 2
        }
        return result
    }
}
