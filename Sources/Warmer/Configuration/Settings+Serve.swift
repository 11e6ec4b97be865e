/// `warmer serve`'s own settings: who may call the API, and its limits
/// (docs/http-api.md, "Security" and "Limits").
extension Settings {
    static let serve: [any AnySetting] = [
        readTokens, adminTokens, corsOrigins, maxBody, requestTimeout, maxEventStreams, maxEventStreamsPerToken, eventKeepAlive,
        warmConcurrency,
    ]

    /// A token: 16 to 256 visible ASCII characters, so that a guessable or
    /// mistyped one (a stray space, an empty item) is refused at start.
    private static func tokenProblem(_ token: String) -> String? {
        guard (16...256).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "is not a token of 16 to 256 visible ASCII characters"
        }
        return nil
    }

    static let readTokens = Setting<[String]>(
        "read-tokens", kind: .list, default: [], defaultText: "none", example: "r3ad-0nly-t0ken-example", valueName: "token",
        commands: [.serve], isSecret: true, hasFlag: false,
        help: "Bearer tokens that may read (GET) the API, comma-separated; never on the command line. Without any token the server listens on loopback only. Secret: never shown.",
        convert: SettingConversion.list(splittingCommas: true, tokenProblem))

    static let adminTokens = Setting<[String]>(
        "admin-tokens", kind: .list, default: [], defaultText: "none", example: "adm1n-t0ken-example-0001", valueName: "token",
        commands: [.serve], isSecret: true, hasFlag: false,
        help: "Bearer tokens that may read and change (enqueue, cancel, reprioritise, pause, resume, retry and purge dead letters), comma-separated; never on the command line. Secret: never shown.",
        convert: SettingConversion.list(splittingCommas: true, tokenProblem))

    static let corsOrigins = Setting<[String]>(
        "cors-origins", kind: .list, default: [], defaultText: "none (CORS off)", example: "https://ops.example.com",
        valueName: "origin", flag: "cors-origin", commands: [.serve],
        help: "Origins whose pages may call the API from a browser (CORS); the flag is repeatable, the variable comma-separated. Off unless given.",
        convert: SettingConversion.list(splittingCommas: true) { origin in
            origin.hasPrefix("http://") || origin.hasPrefix("https://") ? nil : "is not an origin (http://host[:port] or https://…)"
        })

    static let maxBody = Setting<Int>(
        "max-body", kind: .wholeNumber, default: 8, example: "8", valueName: "mib", commands: [.serve],
        help: "Largest request body in MiB (a POSTed batch: 10,000 URLs of 100 bytes are about 1 MiB); a larger one is refused with 413 as it streams in.",
        convert: SettingConversion.wholeNumber(1...128))

    static let requestTimeout = Setting<Int>(
        "request-timeout", kind: .wholeNumber, default: 30, example: "30", valueName: "seconds", commands: [.serve],
        help: "Seconds a connection may wait idle, or take to send a whole request (headers and body), 1 to 3600; a request still arriving then is answered 408 and the connection closed.",
        convert: SettingConversion.wholeNumber(1...3600))

    static let maxEventStreams = Setting<Int>(
        "max-event-streams", kind: .wholeNumber, default: 1000, example: "1000", valueName: "n", commands: [.serve],
        help: "Server-Sent Event streams open at once (event and summary streams); one more is refused with 503 and Retry-After.",
        convert: SettingConversion.wholeNumber(1...100_000))

    static let maxEventStreamsPerToken = Setting<Int>(
        "max-event-streams-per-token", kind: .wholeNumber, default: 100, example: "100", valueName: "n", commands: [.serve],
        help: "Server-Sent Event streams one caller (one token; without tokens, one client address) may hold open at once; one more is refused with 429 and Retry-After.",
        convert: SettingConversion.wholeNumber(1...100_000))

    static let eventKeepAlive = Setting<Int>(
        "event-keep-alive", kind: .wholeNumber, default: 15, example: "15", valueName: "seconds", commands: [.serve],
        help: "Seconds between keep-alive comments on an idle Server-Sent Event stream, 1 to 25.",
        convert: SettingConversion.wholeNumber(1...25))

    static let warmConcurrency = Setting<Int>(
        "warm-concurrency", kind: .wholeNumber, default: 4, example: "4", valueName: "n", commands: [.serve],
        help: "Images GET /v1/cache?warm=1 loads at once; identical requests share one load. More wait their turn.",
        convert: SettingConversion.wholeNumber(1...1024))
}
