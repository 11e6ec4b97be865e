/// The directives of a `Cache-Control` header value that matter to a shared
/// cache (RFC 9111 §5.2), parsed once.
///
/// The grammar is `#( token [ "=" ( token / quoted-string ) ] )`:
/// comma-separated directives, names compared case-insensitively, and an
/// optional argument that may be quoted (commas inside the quotes do not split
/// a directive, and `\` escapes the next character). Unknown directives are
/// ignored, as RFC 9111 §5.2.3 requires.
///
/// Wherever the header is ambiguous the parse errs toward *less* caching:
/// - **Invalid delta-seconds** (`max-age=abc`, `max-age=-1`, `max-age=`,
///   `max-age` with no argument, an unterminated quote) count as `0`, which
///   makes the response stale at once.
/// - **A duplicated `max-age` or `s-maxage`** counts as `0`: RFC 9111 §4.2.1
///   lets a cache either use the first occurrence or consider the response
///   stale, and we take the stale reading (the duplicate most likely comes
///   from two layers disagreeing).
/// - **Huge values** are capped at 2³¹ seconds (RFC 9111 §1.2.2).
/// - **Qualified forms** `no-cache="Set-Cookie"` and `private="X"` are read as
///   the unqualified `no-cache` and `private`: we store whole responses, so
///   we cannot drop just the named header fields. Any argument on the other
///   restrictive directives (`no-store`, `must-revalidate`,
///   `proxy-revalidate`) is ignored likewise, whereas `public` and `immutable`,
///   which allow *more* caching, only count without an argument.
///
/// Public because `HTTPCacheMetadata.cacheControlDirectives` exposes it.
public struct CacheControl: Sendable, Hashable {
    /// `no-store`: the response must not be stored at all.
    public private(set) var noStore = false
    /// `no-cache`: a stored response must be revalidated before every use.
    public private(set) var noCache = false
    /// `private`: only a private (browser) cache may store the response; a
    /// shared cache such as ours must not.
    public private(set) var isPrivate = false
    /// `public`: any cache may store it, even for a request with `Authorization`.
    public private(set) var isPublic = false
    /// `must-revalidate`: once stale, the response must not be used without
    /// revalidation.
    public private(set) var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only.
    public private(set) var proxyRevalidate = false
    /// `immutable` (RFC 8246): the body will not change while fresh.
    public private(set) var immutable = false
    /// `max-age`, in seconds: the freshness lifetime for any cache.
    public private(set) var maxAge: Int?
    /// `s-maxage`, in seconds: the freshness lifetime for shared caches,
    /// overriding `max-age` and `Expires`.
    public private(set) var sMaxAge: Int?

    /// The largest delta-seconds value kept: 2³¹, the value RFC 9111 §1.2.2
    /// tells a cache to use for anything larger.
    static let deltaSecondsLimit = 2_147_483_648

    /// Parses a `Cache-Control` header value; `nil` (no header) gives no directives.
    public init(_ value: String?) {
        guard let value else { return }
        var seenMaxAge = false, seenSMaxAge = false
        for directive in Self.directives(in: value) {
            switch directive.name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "public": isPublic = isPublic || directive.argument == nil
            case "immutable": immutable = immutable || directive.argument == nil
            case "max-age":
                maxAge = seenMaxAge ? 0 : directive.seconds
                seenMaxAge = true
            case "s-maxage":
                sMaxAge = seenSMaxAge ? 0 : directive.seconds
                seenSMaxAge = true
            default: break
            }
        }
    }

    /// Parses delta-seconds (RFC 9111 §1.2.2): one or more ASCII digits, capped
    /// at `deltaSecondsLimit`; `nil` for anything else. Also used for `Age`.
    static func deltaSeconds(_ text: String) -> Int? {
        let bytes = text.utf8
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard (48...57).contains(byte) else { return nil }
            value = min(value * 10 + Int(byte - 48), deltaSecondsLimit)
        }
        return value
    }

    // MARK: Tokenizing

    /// One `name[=argument]` element of the header value.
    struct Directive: Equatable {
        /// The directive's name, lowercased.
        var name: String
        /// The argument, unquoted and unescaped; `nil` when there is no `=`.
        var argument: String?
        /// Whether the argument is malformed: an unterminated quoted string, or
        /// text after the closing quote.
        var isMalformed = false

        /// The argument as delta-seconds; 0 when missing or invalid (stale).
        var seconds: Int {
            guard !isMalformed, let argument else { return 0 }
            return CacheControl.deltaSeconds(argument) ?? 0
        }
    }

    /// Splits a header value into directives, in order, skipping empty elements.
    static func directives(in value: String) -> [Directive] {
        let bytes = Array(value.utf8)
        var result: [Directive] = []
        var index = 0

        /// Advances `index` past spaces and tabs.
        func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        /// The text of `bytes[start..<end]` without surrounding whitespace.
        func text(_ start: Int, _ end: Int) -> String {
            var start = start, end = end
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }

        let comma = UInt8(ascii: ","), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        while index < bytes.count {
            let nameStart = index
            while index < bytes.count, bytes[index] != comma, bytes[index] != equals { index += 1 }
            var directive = Directive(name: text(nameStart, index).lowercased())

            if index < bytes.count, bytes[index] == equals {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == quote {
                    // quoted-string: up to the next unescaped quote, commas included.
                    index += 1
                    var unquoted: [UInt8] = []
                    var closed = false
                    while index < bytes.count {
                        let byte = bytes[index]
                        if byte == backslash, index + 1 < bytes.count {
                            unquoted.append(bytes[index + 1])
                            index += 2
                        } else if byte == quote {
                            closed = true
                            index += 1
                            break
                        } else {
                            unquoted.append(byte)
                            index += 1
                        }
                    }
                    directive.argument = String(decoding: unquoted, as: UTF8.self)
                    skipWhitespace()
                    directive.isMalformed = !closed || (index < bytes.count && bytes[index] != comma)
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                } else {
                    let argumentStart = index
                    while index < bytes.count, bytes[index] != comma { index += 1 }
                    directive.argument = text(argumentStart, index)
                }
            }

            index += 1  // past the comma
            if !directive.name.isEmpty { result.append(directive) }
        }
        return result
    }
}
