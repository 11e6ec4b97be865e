import Foundation
import TestSupport

/// A `warmer serve` process for one test, on a free loopback port, stopped by `withServe`.
final class ServeProcess: Sendable {
    let process: CollectedProcess
    let port: Int

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// The end of its log (standard error), for failure messages.
    var logTail: String {
        process.standardErrorSoFar.split(separator: "\n", omittingEmptySubsequences: false).suffix(60).joined(separator: "\n")
    }

    /// Starts `warmer serve` on `redisURL` with the tokens in
    /// `WARMER_ADMIN_TOKENS` and `WARMER_READ_TOKENS`, and waits until it answers `/healthz`.
    init(redisURL: String, cacheDirectory: URL, adminTokens: [String], readTokens: [String]) async throws {
        port = try freeLoopbackPort()
        var environment: [String: String] = [:]
        if !adminTokens.isEmpty { environment["WARMER_ADMIN_TOKENS"] = adminTokens.joined(separator: ",") }
        if !readTokens.isEmpty { environment["WARMER_READ_TOKENS"] = readTokens.joined(separator: ",") }
        process = try CollectedProcess(
            ["serve", "--redis", redisURL, "--http-port", String(port), "--cache-dir", cacheDirectory.path],
            environment: environment)
        let probe = HTTPProbe(port: port)
        let answering = await eventually { [process] in await probe.get("/healthz") != nil || !process.isRunning }
        guard answering, process.isRunning else {
            process.send(SIGKILL)
            throw HarnessError("warmer serve did not answer on \(url):\n\(process.standardErrorSoFar)")
        }
    }

    /// SIGTERM, then waits for the exit (SIGKILL after 15 s); the result, or nil if it had to be killed.
    @discardableResult
    func stop() async -> CommandResult? {
        process.send(SIGTERM)
        if let result = await process.waitForExit(timeout: .seconds(15)) { return result }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
        return nil
    }
}

/// Starts `warmer serve` (see `ServeProcess.init`), runs `body`, and stops
/// the server however `body` ends.
func withServe<Result>(
    redisURL: String, cacheDirectory: URL, adminTokens: [String], readTokens: [String],
    _ body: (ServeProcess) async throws -> Result
) async throws -> Result {
    let server = try await ServeProcess(redisURL: redisURL, cacheDirectory: cacheDirectory,
                                        adminTokens: adminTokens, readTokens: readTokens)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
