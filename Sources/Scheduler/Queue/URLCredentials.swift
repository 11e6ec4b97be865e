/// Masks the credentials of URLs in text that Warmer publishes or logs.
///
/// A job's URL may carry userinfo (`http://user:password@host/…`), which the
/// download sends as Basic auth; everything shown to observers — events,
/// dead-letter listings, log lines, error messages quoting a URL — shows it
/// as `http://user:***@host/…`. A lone user name (`http://token@host/…`,
/// often a token) becomes `***`. The queue's Lua scripts apply the same rule
/// (`masked` in `Queue/Lua/includes/masking.lua`) to the events they publish, and
/// `URLCredentialsDifferentialTests` checks that both agree on every input.
///
/// The rule is RFC 3986's authority, applied to every URL found anywhere
/// in the text:
///
/// - A URL starts at a `:` followed by one or more slashes: `/`, or `\/`
///   (a slash escaped in JSON). So `http://`, `http:\/\/` and the malformed
///   `http:/` and `http:///` all start one. So does the `:` of a scheme
///   `http` or `https` (any case, not preceded by a letter, digit, `+`, `-`
///   or `.`) with no slash at all: `http:user:pw@host`, which curl reads
///   as `http://user:pw@host`.
/// - Its authority is what follows the slashes up to the first `/`, `?` or
///   `#` (or the end of the text). Nothing else ends it: a quote, `\`, `<`,
///   `>` or a space may be part of a password that a download would send.
/// - If the authority holds an `@`, everything before its *last* `@` is the
///   userinfo: what follows its first `:` is replaced by `***` (the whole
///   userinfo when it has no `:`).
///
/// So text is never under-masked: when a URL has no path, its authority may
/// run into the text after it, and an `@` there masks that text too.
/// Masking masked text changes nothing.
public enum URLCredentials {
    /// `text` with the password (or lone user name) of every URL in it replaced by `***`.
    public static func masked(_ text: String) -> String {
        // Almost every text has no userinfo at all: leave it untouched.
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard let start = authorityStart(in: bytes, anchor: index) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            output.append(contentsOf: bytes[index..<start])
            var end = start
            var lastAt: Int?
            while end < bytes.count, !endsAuthority(bytes[end]) {
                if bytes[end] == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            guard let lastAt else {
                // No userinfo: go on from the authority's first byte (another
                // URL may start at its very end, `http://host http://…`).
                index = start
                continue
            }
            let userinfo = bytes[start..<lastAt]
            if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                output.append(contentsOf: bytes[start...colon])
            }
            output.append(contentsOf: Array("***".utf8))
            index = lastAt
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Where the authority starts when a URL starts at `anchor` (a `:`
    /// followed by one or more `/` or `\/`, or the `:` of a lone `http` or
    /// `https` scheme), or nil.
    private static func authorityStart(in bytes: [UInt8], anchor: Int) -> Int? {
        guard bytes[anchor] == UInt8(ascii: ":") else { return nil }
        var index = anchor + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                index += 2
            } else {
                break
            }
        }
        if index > anchor + 1 { return index }
        return isHTTPScheme(before: anchor, in: bytes) ? anchor + 1 : nil
    }

    /// Whether `http` or `https` (any case) ends right before `anchor` and
    /// starts the scheme: no letter, digit, `+`, `-` or `.` precedes it.
    private static func isHTTPScheme(before anchor: Int, in bytes: [UInt8]) -> Bool {
        for scheme in ["https", "http"] {
            let start = anchor - scheme.utf8.count
            guard start >= 0, bytes[start..<anchor].map({ $0 | 0x20 }).elementsEqual(scheme.utf8) else { continue }
            return start == 0 || !isSchemeByte(bytes[start - 1])
        }
        return false
    }

    /// Whether `byte` may be part of a URL scheme (RFC 3986: letters, digits, `+`, `-`, `.`).
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// Whether `byte` ends a URL's authority (RFC 3986: `/`, `?` or `#`).
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }
}
