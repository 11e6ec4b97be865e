import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// A real `warmer serve` process without tokens on a free loopback port, over a cache
/// folder, and plain HTTP requests to it (no client cache in between).
final class CacheServeProcess: Sendable {
    /// One answer: status, header fields (names lowercased) and body.
    struct Answer: Sendable, CustomStringConvertible {
        let status: Int
        let headers: [String: String]
        let body: Data

        /// A header field by its lowercased name.
        subscript(_ name: String) -> String? { headers[name.lowercased()] }
        /// The body as a JSON object (problems).
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var description: String { "\(status) \(headers) \(String(decoding: body.prefix(300), as: UTF8.self))" }
    }

    let port: Int
    private let process: CollectedProcess
    private let session: URLSession

    /// Starts `warmer serve` and waits until it answers `/healthz`.
    init(cacheDirectory: URL, arguments: [String] = [], environment: [String: String] = [:]) async throws {
        port = try freeLoopbackPort()
        process = try CollectedProcess(
            ["serve", "--http-port", String(port), "--cache-dir", cacheDirectory.path, "--redis", try TestEnvironment.redisURL()]
                + arguments, environment: environment)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: configuration)
        let answering = await eventually { [self] in ((try? await get("/healthz")).map { $0.status == 200 }) ?? false }
        guard answering else {
            throw HarnessError("warmer serve did not answer on port \(port):\n\(process.standardErrorSoFar)")
        }
    }

    /// `/v1/cache?url=…[&processing=…][&warm=1]`, every value percent-encoded.
    static func cachePath(_ url: URL, processing: String? = nil, warm: Bool = false) -> String {
        var path = "/v1/cache?url=" + encode(url.absoluteString)
        if let processing { path += "&processing=" + encode(processing) }
        if warm { path += "&warm=1" }
        return path
    }

    /// `value` with everything but unreserved characters percent-encoded.
    static func encode(_ value: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// `METHOD path` with `headers`.
    func get(_ path: String, method: String = "GET", headers: [String: String] = [:]) async throws -> Answer {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw HarnessError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 60
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HarnessError("not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// What the server logged so far.
    var log: String { process.standardErrorSoFar + process.standardOutputSoFar }

    /// Stops the server (SIGTERM) and waits for it.
    func stop() async {
        process.send(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil {
            process.send(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
        }
    }
}
