/// Texts for the masking differential: seeded, so a failure repeats, and
/// made of the bytes that steer the rule of `URLCredentials`.
struct MaskingTextGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The next pseudo-random number (SplitMix64).
    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    private static let pieces = [
        ":", "/", "\\", "\\/", "@", "?", "#", "'", "\"", "<", ">", " ", "\t", "\n", "a", "b", "x", "http", "https:", "http:", "HTTP:", "Https:",
        "://", ":\\/\\/", ":/", "user", "pw", "%40", "%3A", "é", "→", "***", "{", "}", ",", "=",
    ]

    /// A text of up to 40 pieces.
    mutating func text() -> String {
        (0..<below(40)).map { _ in Self.pieces[below(Self.pieces.count)] }.joined()
    }

    private static let secretBytes = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789'\"<>\\ ;,!$&()*+=:~%é")

    /// A text holding one URL with a password (a run of characters allowed
    /// in a userinfo, quotes and `\` included), and that password.
    mutating func textWithSecretURL() -> (text: String, secret: String) {
        let secret = "Q" + String((0..<(4 + below(12))).map { _ in Self.secretBytes[below(Self.secretBytes.count)] }) + "Z"
        let scheme = ["http://", "https://", "http:/", "http:///", "http:\\/\\/", "ftp://", "http:", "HTTPS:"][below(8)]
        let user = ["", "user", "u%40x", "a b"][below(4)]
        let tail = ["/x.jpg", "", "?q=a@b", "#f@g", "/p@q", ":8080/x"][below(6)]
        let url = scheme + user + ":" + secret + "@" + ["host", "h@st", "[::1]"][below(3)] + tail
        // (A scheme without slashes is one only where it starts: not glued to a word before it.)
        let before = scheme.hasSuffix(":") ? [" ", "\"", "'", "("][below(4)] : [" ", "\"", "'", "(", ""][below(5)]
        return (text() + before + url + [" ", "\"", ")", "", ","][below(5)] + text(), secret)
    }
}
