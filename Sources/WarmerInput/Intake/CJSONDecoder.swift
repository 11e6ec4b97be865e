/// Decodes JSON exactly as the intake expansion does in Redis: Lua's
/// `cjson.decode` (lua-cjson as bundled with Redis 7) with
/// `decode_invalid_numbers` off. Same values, same refusals, same messages —
/// a document Redis dead-letters as `malformed_document` fails here with the
/// message Redis writes after `not JSON: `.
///
/// What cjson does that a strict JSON parser would not, and this decoder
/// therefore does too:
/// - The text ends at the first NUL byte, as a C string does (whatever
///   follows is ignored); a NUL in the first two bytes is refused as UTF-16.
/// - Strings are bytes: invalid UTF-8 and raw control characters pass.
/// - Numbers are read by C's `strtod` once they start like JSON numbers, so
///   `-.5`, `1.` and `1.e3` are numbers; `1e999` is infinity. `0x10`,
///   leading zeros, `+1`, `Infinity` and `NaN` are refused.
/// - At most 1,000 nested arrays and objects.
/// - A repeated object key keeps its last value.
///
/// Positions in messages count bytes from 1, like cjson's.
public struct CJSONDecoder {
    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 1000

    /// Why a text is not JSON to cjson.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// cjson's message, e.g. `Expected value but found invalid token at character 1`.
        public let message: String

        /// The message.
        public var description: String { message }
    }

    /// Decodes `bytes`.
    /// - Throws: `Failure` with cjson's message.
    public static func decode(_ bytes: [UInt8]) throws(Failure) -> CJSONValue {
        guard bytes.count < 2 || (bytes[0] != 0 && bytes[1] != 0) else {
            throw Failure(message: "JSON parser does not support UTF-16 or UTF-32")
        }
        var decoder = CJSONDecoder(bytes: bytes)
        let first = decoder.nextToken()
        let value = try decoder.value(first)
        let last = decoder.nextToken()
        guard case .end = last.kind else { throw expected("the end", last) }
        return value
    }

    private let bytes: [UInt8]
    /// The next byte to read (cjson's `json->ptr`).
    private var position = 0
    /// Arrays and objects open around `position`.
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Values

    private mutating func value(_ token: Token) throws(Failure) -> CJSONValue {
        switch token.kind {
        case .string(let bytes): return .string(bytes)
        case .number(let number): return .number(number)
        case .boolean(let value): return .boolean(value)
        case .null: return .null
        case .objectBegin: return try object()
        case .arrayBegin: return try array()
        default: throw Self.expected("value", token)
        }
    }

    private mutating func object() throws(Failure) -> CJSONValue {
        try descend()
        var fields: [[UInt8]: CJSONValue] = [:]
        var token = nextToken()
        if case .objectEnd = token.kind {
            depth -= 1
            return .object(fields)
        }
        while true {
            guard case .string(let key) = token.kind else { throw Self.expected("object key string", token) }
            token = nextToken()
            guard case .colon = token.kind else { throw Self.expected("colon", token) }
            fields[key] = try value(nextToken())
            token = nextToken()
            if case .objectEnd = token.kind {
                depth -= 1
                return .object(fields)
            }
            guard case .comma = token.kind else { throw Self.expected("comma or object end", token) }
            token = nextToken()
        }
    }

    private mutating func array() throws(Failure) -> CJSONValue {
        try descend()
        var elements: [CJSONValue] = []
        var token = nextToken()
        if case .arrayEnd = token.kind {
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value(token))
            token = nextToken()
            if case .arrayEnd = token.kind {
                depth -= 1
                return .array(elements)
            }
            guard case .comma = token.kind else { throw Self.expected("comma or array end", token) }
            token = nextToken()
        }
    }

    /// Enters an array or object (its opening bracket already read).
    private mutating func descend() throws(Failure) {
        depth += 1
        guard depth <= Self.maxDepth else {
            // cjson reports the offset after the bracket here, counted from 0.
            throw Failure(message: "Found too many nested data structures (\(depth)) at character \(position)")
        }
    }

    private static func expected(_ what: String, _ token: Token) -> Failure {
        Failure(message: "Expected \(what) but found \(token.kind.name) at character \(token.index + 1)")
    }

    // MARK: Tokens

    /// One token and where it starts (for an error, where it was found).
    private struct Token {
        enum Kind {
            case objectBegin, objectEnd, arrayBegin, arrayEnd, colon, comma, end
            case string([UInt8]), number(Double), boolean(Bool), null
            /// What is wrong, in cjson's words.
            case error(String)

            /// The name cjson gives the token in messages.
            var name: String {
                switch self {
                case .objectBegin: "T_OBJ_BEGIN"
                case .objectEnd: "T_OBJ_END"
                case .arrayBegin: "T_ARR_BEGIN"
                case .arrayEnd: "T_ARR_END"
                case .colon: "T_COLON"
                case .comma: "T_COMMA"
                case .end: "T_END"
                case .string: "T_STRING"
                case .number: "T_NUMBER"
                case .boolean: "T_BOOLEAN"
                case .null: "T_NULL"
                case .error(let reason): reason
                }
            }
        }

        var kind: Kind
        var index: Int
    }

    /// The byte at `index`; 0 past the end, like the C string's terminator.
    private func byte(_ index: Int) -> UInt8 {
        index >= 0 && index < bytes.count ? bytes[index] : 0
    }

    /// Whether `literal` starts at `index` (`strncmp`).
    private func matches(_ literal: String, at index: Int) -> Bool {
        literal.utf8.enumerated().allSatisfy { byte(index + $0.offset) == $0.element }
    }

    private mutating func nextToken() -> Token {
        while Self.isWhitespace(byte(position)) { position += 1 }
        let start = position
        let single: Token.Kind? = switch byte(start) {
        case UInt8(ascii: "{"): .objectBegin
        case UInt8(ascii: "}"): .objectEnd
        case UInt8(ascii: "["): .arrayBegin
        case UInt8(ascii: "]"): .arrayEnd
        case UInt8(ascii: ":"): .colon
        case UInt8(ascii: ","): .comma
        default: nil
        }
        if let single {
            position += 1
            return Token(kind: single, index: start)
        }
        switch byte(start) {
        case 0:
            return Token(kind: .end, index: start)
        case UInt8(ascii: "\""):
            return stringToken()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return numberToken()
        default:
            for (literal, kind) in [("true", Token.Kind.boolean(true)), ("false", .boolean(false)), ("null", .null)]
            where matches(literal, at: start) {
                position += literal.utf8.count
                return Token(kind: kind, index: start)
            }
            return Token(kind: .error("invalid token"), index: start)
        }
    }

    /// A string from the quote at `position`; an error points at the byte at fault.
    private mutating func stringToken() -> Token {
        let start = position
        position += 1
        var text: [UInt8] = []
        while byte(position) != UInt8(ascii: "\"") {
            let current = byte(position)
            if current == 0 { return Token(kind: .error("unexpected end of string"), index: position) }
            guard current == UInt8(ascii: "\\") else {
                text.append(current)
                position += 1
                continue
            }
            let escaped: UInt8
            switch byte(position + 1) {
            case UInt8(ascii: "u"):
                guard appendUnicodeEscape(to: &text) else {
                    return Token(kind: .error("invalid unicode escape code"), index: position)
                }
                continue
            case UInt8(ascii: "\""): escaped = UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "/"): escaped = UInt8(ascii: "/")
            case UInt8(ascii: "b"): escaped = 0x08
            case UInt8(ascii: "t"): escaped = 0x09
            case UInt8(ascii: "n"): escaped = 0x0A
            case UInt8(ascii: "f"): escaped = 0x0C
            case UInt8(ascii: "r"): escaped = 0x0D
            default: return Token(kind: .error("invalid escape code"), index: position)
            }
            text.append(escaped)
            position += 2
        }
        position += 1
        return Token(kind: .string(text), index: start)
    }

    /// Appends the UTF-8 of the `\uXXXX` escape (or surrogate pair) at
    /// `position` and moves past it; false when it is not a valid one.
    private mutating func appendUnicodeEscape(to text: inout [UInt8]) -> Bool {
        guard var codePoint = hex4(at: position + 2) else { return false }
        var length = 6
        if codePoint & 0xF800 == 0xD800 {
            // A high surrogate, then `\u` and a low one.
            guard codePoint & 0x400 == 0, byte(position + 6) == UInt8(ascii: "\\"), byte(position + 7) == UInt8(ascii: "u"),
                  let low = hex4(at: position + 8), low & 0xFC00 == 0xDC00 else { return false }
            codePoint = ((codePoint & 0x3FF) << 10 | (low & 0x3FF)) + 0x10000
            length = 12
        }
        text.append(contentsOf: Self.utf8(codePoint))
        position += length
        return true
    }

    /// Four hex digits at `index`, or nil.
    private func hex4(at index: Int) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let character = byte(index + offset), lowercase = character | 0x20
            let digit: UInt8
            if Self.isDigit(character) {
                digit = character - 0x30
            } else if (0x61...0x66).contains(lowercase) {
                digit = lowercase - 0x61 + 10
            } else {
                return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The UTF-8 bytes of a code point up to 0x10FFFF (cjson encodes a lone
    /// code point as it comes; surrogates never get here).
    private static func utf8(_ codePoint: UInt32) -> [UInt8] {
        switch codePoint {
        case ..<0x80:
            [UInt8(codePoint)]
        case ..<0x800:
            [UInt8(codePoint >> 6 | 0xC0), UInt8(codePoint & 0x3F | 0x80)]
        case ..<0x10000:
            [UInt8(codePoint >> 12 | 0xE0), UInt8(codePoint >> 6 & 0x3F | 0x80), UInt8(codePoint & 0x3F | 0x80)]
        default:
            [UInt8(codePoint >> 18 & 0x07 | 0xF0), UInt8(codePoint >> 12 & 0x3F | 0x80), UInt8(codePoint >> 6 & 0x3F | 0x80),
             UInt8(codePoint & 0x3F | 0x80)]
        }
    }

    /// A number starting at `position` (a `-` or a digit). With invalid
    /// numbers off, cjson refuses `0x…`, leading zeros and `-inf`/`-nan`
    /// by their first bytes, then lets `strtod` read what it can.
    private mutating func numberToken() -> Token {
        let start = position
        var first = start
        if byte(first) == UInt8(ascii: "-") { first += 1 }
        let lead = byte(first), next = byte(first + 1)
        let refused = lead == UInt8(ascii: "0")
            ? next | 0x20 == UInt8(ascii: "x") || Self.isDigit(next)
            : lead > UInt8(ascii: "9") && (caseInsensitivelyMatches("inf", at: first) || caseInsensitivelyMatches("nan", at: first))
        let length = refused ? 0 : decimalLength(from: start)
        guard length > 0, let number = Double(String(decoding: bytes[start..<start + length], as: UTF8.self)) else {
            return Token(kind: .error("invalid number"), index: start)
        }
        position += length
        return Token(kind: .number(number), index: start)
    }

    /// How many bytes from `start` C's `strtod` reads as a decimal number:
    /// `[-]digits[.digits][e[±]digits]`, the integer or the fraction part
    /// possibly empty but not both; an exponent without digits is not read.
    private func decimalLength(from start: Int) -> Int {
        var index = start
        if byte(index) == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while Self.isDigit(byte(index)) { index += 1; digits += 1 }
        if byte(index) == UInt8(ascii: ".") {
            index += 1
            while Self.isDigit(byte(index)) { index += 1; digits += 1 }
        }
        guard digits > 0 else { return 0 }
        if byte(index) | 0x20 == UInt8(ascii: "e") {
            var exponent = index + 1
            if byte(exponent) == UInt8(ascii: "+") || byte(exponent) == UInt8(ascii: "-") { exponent += 1 }
            if Self.isDigit(byte(exponent)) {
                while Self.isDigit(byte(exponent)) { exponent += 1 }
                index = exponent
            }
        }
        return index - start
    }

    /// `strncasecmp(bytes + index, literal, count) == 0` for a lowercase ASCII `literal`.
    private func caseInsensitivelyMatches(_ literal: String, at index: Int) -> Bool {
        literal.utf8.enumerated().allSatisfy { byte(index + $0.offset) | 0x20 == $0.element }
    }

    /// JSON's whitespace: space, tab, LF, CR.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }
}
