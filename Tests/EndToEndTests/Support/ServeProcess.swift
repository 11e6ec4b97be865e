import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TestSupport

/// A `warmer serve` process for one test on a free loopback port, and the
/// requests a test makes to it. Every request made through `request` is
/// recorded (a JSON line per exchange) so that `checkRecordedExchanges()`
/// can validate each response against docs/openapi.yaml with openapi-core
/// (scripts/openapi-check.py, which scripts/test.sh keeps running).
final class ServeProcess: Sendable {
    /// The test's admin and read tokens (16+ visible characters).
    static let adminToken = "adm1n-t0ken-for-serve-tests"
    static let readToken = "r3ad-t0ken-for-serve-tests"

    let process: CollectedProcess
    let port: Int
    /// The exchanges recorded so far, one JSON object a line.
    let exchanges: URL

    /// An answer: status, headers (names lowercased) and body.
    struct Answer: Sendable, CustomStringConvertible {
        let status: Int
        let headers: [String: String]
        let body: String
        var description: String { "\(status) \(headers["content-type"] ?? "-") \(body)" }

        /// The body as a JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }

        /// The problem's `code`, for a problem answer.
        var code: String? { json["code"] as? String }
    }

    /// Starts `warmer serve` on `queue`'s Redis with the test's tokens
    /// (unless `tokens` is false) and waits until it answers.
    init(queue: QueueProbe, tokens: Bool = true, arguments: [String] = []) async throws {
        port = try freeLoopbackPort()
        let environment = tokens ? ["WARMER_ADMIN_TOKENS": Self.adminToken, "WARMER_READ_TOKENS": Self.readToken] : [:]
        process = try CollectedProcess(
            ["serve", "--redis", queue.redisURL, "--queue", queue.name, "--http-port", String(port), "--log-level", "debug"]
                + arguments, environment: environment)
        exchanges = try TestEnvironment.temporaryDirectory("serve").appendingPathComponent("exchanges.jsonl")
        _ = FileManager.default.createFile(atPath: exchanges.path, contents: nil)
        let answering = await eventually { await ping() || !process.isRunning }
        guard answering, process.isRunning else {
            throw HarnessError("warmer serve did not answer on 127.0.0.1:\(port):\n\(process.standardErrorSoFar)")
        }
    }

    private func ping() async -> Bool {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        request.timeoutInterval = 2
        return (try? await URLSession.shared.data(for: request)) != nil
    }

    /// The server's log (standard error) so far.
    var log: String { process.standardErrorSoFar }

    /// `METHOD path` with `token` as bearer (none when nil) and a JSON
    /// `body`; recorded for the contract check unless `record` is false.
    func request(
        _ method: String, _ path: String, token: String? = ServeProcess.adminToken, body: String? = nil,
        headers: [String: String] = [:], record: Bool = true
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HarnessError("not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        let answer = Answer(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self))
        if record { try recordExchange(method: method, path: path, body: body, answer: answer) }
        return answer
    }

    private func recordExchange(method: String, path: String, body: String?, answer: Answer) throws {
        let line: [String: Any] = [
            "method": method, "path": path, "requestBody": body ?? NSNull(), "status": answer.status,
            "headers": answer.headers, "body": answer.body,
        ]
        var data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        data.append(0x0A)
        let handle = try FileHandle(forWritingTo: exchanges)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }

    /// Validates every recorded response against docs/openapi.yaml with the
    /// run's contract checker (scripts/openapi-check.py --serve, which keeps
    /// openapi-core and the contract loaded); returns its complaints, empty
    /// when all conform.
    func checkRecordedExchanges() async throws -> String {
        try await Self.contractComplaints(about: Data(contentsOf: exchanges))
    }

    /// What the contract checker says of `exchanges` (JSON lines as `request`
    /// records them): a line per response off docs/openapi.yaml, empty when all conform.
    static func contractComplaints(about exchanges: Data) async throws -> String {
        var request = URLRequest(url: try TestEnvironment.contractCheckerURL().appendingPathComponent("check"))
        request.httpMethod = "POST"
        request.httpBody = exchanges
        request.timeoutInterval = 60
        let (data, response) = try await URLSession.shared.data(for: request)
        let answer = String(decoding: data, as: UTF8.self)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw HarnessError("the contract checker refused: \(answer)") }
        return answer
    }

    /// SIGTERM and the exit; SIGKILL after 10 s.
    @discardableResult
    func stop() async -> CommandResult? {
        process.send(SIGTERM)
        if let result = await process.waitForExit(timeout: .seconds(10)) { return result }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
        return nil
    }
}

/// Starts `warmer serve` for `queue` (with the test's tokens unless
/// `tokens` is false), runs `body`, then checks every
/// recorded exchange against the contract, that the server's log never
/// shows a token, and that it stops with status 0 on SIGTERM.
func withServe<Result>(
    queue: QueueProbe, tokens: Bool = true, arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (ServeProcess) async throws -> Result
) async throws -> Result {
    let serve = try await ServeProcess(queue: queue, tokens: tokens, arguments: arguments)
    let result: Result
    do {
        result = try await body(serve)
    } catch {
        await serve.stop()
        throw HarnessError("\(error)\n--- serve log ---\n\(serve.log.split(separator: "\n").suffix(40).joined(separator: "\n"))")
    }
    let complaints = try await serve.checkRecordedExchanges()
    #expect(complaints.isEmpty, "responses off the contract:\n\(complaints)", sourceLocation: sourceLocation)
    try? FileManager.default.removeItem(at: serve.exchanges.deletingLastPathComponent())
    let stopped = await serve.stop()
    #expect(stopped?.exited == true && stopped?.status == 0, "serve stopped badly: \(stopped.map { "\($0)" } ?? "killed")",
            sourceLocation: sourceLocation)
    let log = serve.log
    #expect(!log.contains(ServeProcess.adminToken) && !log.contains(ServeProcess.readToken),
            "a token appears in the server's log", sourceLocation: sourceLocation)
    return result
}
