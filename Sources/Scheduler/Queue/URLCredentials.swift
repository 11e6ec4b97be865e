/// Masks the credentials of URLs in text that Warmer publishes or logs.
///
/// A job's URL may carry userinfo (`http://user:password@host/…`), which the
/// download sends as Basic auth; everything shown to observers — events,
/// dead-letter listings, log lines, error messages quoting a URL — shows it
/// as `http://user:***@host/…`. A lone user name (`http://token@host/…`,
/// often a token) becomes `***`. The queue's Lua scripts apply the same rule
/// (`masked` in `Queue/Lua/queue.lua`) to the events they publish.
///
/// The rule, applied to every URL found anywhere in the text: after `://`
/// (or `:\/\/`, the same in JSON with escaped slashes), the authority runs
/// until `/`, `?`, `#`, `\`, a quote, `<`, `>` or white space; if it holds an
/// `@`, everything before the last `@` is the userinfo, and what follows
/// its first `:` is replaced by `***` (the whole userinfo when it has no
/// `:`). Masking masked text changes nothing.
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
            guard let length = anchorLength(in: bytes, at: index) else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let start = index + length
            output.append(contentsOf: bytes[index..<start])
            var end = start
            var lastAt: Int?
            while end < bytes.count, !endsAuthority(bytes[end]) {
                if bytes[end] == UInt8(ascii: "@") { lastAt = end }
                end += 1
            }
            if let lastAt {
                let userinfo = bytes[start..<lastAt]
                if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                    output.append(contentsOf: bytes[start...colon])
                }
                output.append(contentsOf: Array("***".utf8))
                output.append(contentsOf: bytes[lastAt..<end])
            } else {
                output.append(contentsOf: bytes[start..<end])
            }
            index = end
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The length of `://` or `:\/\/` at `index`, if either starts there.
    private static func anchorLength(in bytes: [UInt8], at index: Int) -> Int? {
        for anchor in anchors where index + anchor.count <= bytes.count {
            if bytes[index..<index + anchor.count].elementsEqual(anchor) { return anchor.count }
        }
        return nil
    }

    private static let anchors: [[UInt8]] = [Array("://".utf8), Array(#":\/\/"#.utf8)]

    /// Whether `byte` ends a URL's authority (or the URL itself).
    private static func endsAuthority(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
             UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: " "), 0x09...0x0D:
            true
        default:
            false
        }
    }
}
