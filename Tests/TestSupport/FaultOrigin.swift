import Foundation

/// The fault-injecting origin (`scripts/fault-origin.py`): the nginx origin's
/// files under `/files/NAME`, with the faults nginx cannot produce on demand,
/// and what it logged about each request.
///
/// Every request picks its behaviour with query options, so a test needs no
/// set-up calls and concurrent tests never see each other's settings. Give
/// each test its own `id` (`TestEnvironment.uniqueName`): `fail` and `cut`
/// count requests per id, and `requests(id:)` finds them in the log.
///
/// The options (the full list is in the header of `scripts/fault-origin.py`):
/// - validators and caching: `etag` (`auto`, `weak` or a literal value),
///   `lm` (`auto`: Last-Modified from the file's mtime), `cc` (Cache-Control),
///   `expires` (a value, or `+N` seconds from now), `date` (`-N`: a Date N
///   seconds in the past), `vary`, `age`. Without `etag` and `lm=auto` the
///   responses carry no validators. If-None-Match and If-Modified-Since get a
///   304 with the same headers.
/// - ranges: honoured by default (206, or 416 past the end; a non-matching
///   If-Range gets the full 200); `ranges=ignore` always sends the full 200,
///   `ranges=none` also leaves out `Accept-Ranges`.
/// - faults: `fail=503,500` (the k-th request for the id gets the k-th status,
///   later ones are served), `retryafter=N` or `retryafter=date:N` on those
///   failures; `cut=N` (the connection closes after N body bytes, for the
///   first `cutcount`, default 1, responses with a body); `rate=BYTES` per
///   second; `stall=N` (N bytes, then nothing for up to 120 s);
///   `chunked=1`.
public enum FaultOrigin {
    /// URL of /files/NAME with the given options, e.g. url(file: "a.jpg", ["etag": "auto", "cc": "max-age=60"]).
    ///
    /// The query items are sorted by name and every character but the
    /// unreserved ones (letters, digits, `-._~`) is percent-encoded, so values
    /// such as `+60` or `max-age=60, public` arrive as written.
    public static func url(file: String, _ options: [String: String] = [:]) throws -> URL {
        let path = file.split(separator: "/", omittingEmptySubsequences: false)
            .map { percentEncoded(String($0)) }.joined(separator: "/")
        return try url(path: "files/" + path, query: options)
    }

    /// URL of `/redirect?to=URL`: a 302 whose Location is `to`.
    public static func redirect(to: URL) throws -> URL {
        try url(path: "redirect", query: ["to": to.absoluteString])
    }

    /// URL of `/hang`: an origin that accepts the connection, reads the
    /// request and never answers (for up to 120 s). `id` tags the request in the log.
    public static func hang(id: String) throws -> URL {
        try url(path: "hang", query: ["id": id])
    }

    /// URL of `/status/CODE`: that status, with a tiny text body.
    public static func status(_ code: Int) throws -> URL {
        try url(path: "status/\(code)", query: [:])
    }

    /// Logged requests whose `id` option equals id (or all requests of path /files/NAME when using requests(file:)).
    ///
    /// A request is logged just after its response has ended (or was cut
    /// off): one still in progress is not there yet, and a client that has
    /// just read a whole response can be a moment ahead of its line. Poll
    /// with `eventually` rather than reading once. The requests come in the
    /// order they arrived.
    public static func requests(id: String) throws -> [Request] {
        try loggedRequests(mentioning: id).filter { $0.id == id }
    }

    /// The logged requests for `/files/NAME`, whatever their options, in the
    /// order they arrived.
    public static func requests(file: String) throws -> [Request] {
        try loggedRequests(mentioning: file).filter { $0.path == "/files/" + file }
    }

    /// One request, as the fault origin logged it.
    public struct Request: Sendable, Decodable {
        /// When the request arrived, in seconds since 1970.
        public let ts: Double
        /// When its response ended (complete, cut or abandoned), in seconds since 1970.
        public let end: Double
        /// `GET` or `HEAD`.
        public let method: String
        /// The percent-decoded path, e.g. `/files/a.jpg`.
        public let path: String
        /// The query options, percent-decoded.
        public let query: [String: String]
        /// The `id` option, if any.
        public let id: String?
        /// The request's headers, names lowercased (repeated ones joined with ", ").
        public let headers: [String: String]
        /// The status sent; 0 when the connection failed before a status line was sent.
        public let status: Int
        /// The body bytes actually sent (without chunked framing).
        public let bytes: Int
    }

    /// Every complete line of the log, sorted by arrival.
    ///
    /// - Parameter text: when given, only the lines that contain it are
    ///   decoded (when JSON writes it as is: printable ASCII, no quote or
    ///   backslash). Tests poll the log, which grows through the run, so
    ///   decoding every line at every look cost seconds of CPU.
    static func loggedRequests(mentioning text: String? = nil) throws -> [Request] {
        let data = try Data(contentsOf: TestEnvironment.faultOriginLog())
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // What follows the last newline is empty, or a line still being written.
        lines.removeLast()
        let needle = text.map { Data($0.utf8) }.flatMap { needle in
            needle.allSatisfy { (0x20..<0x7f).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") } ? needle : nil
        }
        let decoder = JSONDecoder()
        let requests = try lines
            .filter { line in !line.isEmpty && needle.map { line.range(of: $0) != nil } ?? true }
            .map { try decoder.decode(Request.self, from: Data($0)) }
        // The log is in the order responses ended; ties keep that order.
        return requests.enumerated()
            .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }
            .map(\.element)
    }

    /// `WARMER_TEST_FAULT_ORIGIN` + `/` + path (already percent-encoded) + the query.
    static func url(path: String, query: [String: String]) throws -> URL {
        var text = try TestEnvironment.faultOriginURL().absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        text += "/" + path
        if !query.isEmpty {
            text += "?" + query.sorted { $0.key < $1.key }
                .map { percentEncoded($0.key) + "=" + percentEncoded($0.value) }
                .joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw InvalidURL(text: text) }
        return url
    }

    /// `text` with everything but the unreserved characters of RFC 3986 percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A fault-origin URL Foundation would not parse.
    struct InvalidURL: Error, CustomStringConvertible {
        let text: String
        var description: String { "not a valid URL: \(text)" }
    }
}
