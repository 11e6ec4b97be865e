import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// A `warmer serve` process on a free loopback port, in front of a test's
/// queue's Redis, with no tokens (so it answers on loopback without any).
final class ServeProcess: Sendable {
    let process: CollectedProcess
    let port: Int

    private init(process: CollectedProcess, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts `warmer serve` with more `arguments` (`--event-keep-alive 1`…)
    /// and waits until `/healthz` answers. A port taken between choosing it
    /// and the server binding it is retried on another.
    static func start(queue: QueueProbe, arguments: [String] = []) async throws -> ServeProcess {
        var failures: [String] = []
        for _ in 0..<3 {
            let listener = try LoopbackListener()
            let port = listener.port
            listener.close()
            let process = try CollectedProcess(["serve"] + queue.redisArguments + ["--http-port", String(port)] + arguments)
            let probe = HTTPProbe(port: port)
            let answering = await eventually {
                guard process.isRunning else { return true }
                return await probe.get("/healthz")?.status == 200
            }
            if answering, process.isRunning { return ServeProcess(process: process, port: port) }
            process.send(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
            failures.append(process.standardErrorSoFar)
        }
        throw HarnessError("warmer serve did not start:\n\(failures.joined(separator: "\n---\n"))")
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Its log so far.
    var log: String { process.standardErrorSoFar }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s.
    func stop() async {
        process.send(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil {
            process.send(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
        }
    }

    /// `POST path` with a JSON body; the status and the body as JSON.
    func post(_ path: String, json: [String: Any]) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// `POST /v1/queues/{queue}/batches` of `urls` as an intake document; the new batch's id.
    func postBatch(_ urls: [URL], queue: QueueProbe) async throws -> String {
        let answer = try await post("/v1/queues/\(queue.name)/batches", json: ["v": 1, "urls": urls.map(\.absoluteString)])
        guard answer.status == 201, let batch = answer.body["batch"] as? String else {
            throw HarnessError("POST of a batch answered \(answer.status): \(answer.body)")
        }
        return batch
    }

    /// A Server-Sent Events request to this server.
    func events(_ path: String, lastEventID: String? = nil) throws -> EventStreamClient {
        try EventStreamClient(port: port, path: path, headers: lastEventID.map { ["Last-Event-ID": $0] } ?? [:])
    }

    /// The local ports of this process's TCP connections (from /proc), to
    /// find its connections in Redis' `CLIENT LIST` (whose `addr` is the
    /// client's end).
    func connectionPorts() async throws -> Set<Int> {
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(processIdentifier)/fd")
        let inodes = Set(fds.compactMap { fd -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(processIdentifier)/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
        var ports = Set<Int>()
        // Read with cat: /proc files report a size of 0, which Foundation's file reading trusts.
        let tables = try await runProcess("/bin/cat", ["/proc/net/tcp", "/proc/net/tcp6"])
        for line in tables.output.split(separator: "\n") {
            let columns = line.split(separator: " ")
            guard columns.count > 9, inodes.contains(String(columns[9])),
                  let port = columns[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
            ports.insert(port)
        }
        return ports
    }
}

/// Starts `warmer serve` for `queue`, runs `body`, and stops it however `body` ends.
func withServe<Result>(
    queue: QueueProbe, arguments: [String] = [], _ body: (ServeProcess) async throws -> Result
) async throws -> Result {
    let serve = try await ServeProcess.start(queue: queue, arguments: arguments)
    do {
        let result = try await body(serve)
        await serve.stop()
        return result
    } catch {
        let log = serve.log.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
        await serve.stop()
        guard error is HarnessError else { throw error }
        throw HarnessError("\(error)\n--- warmer serve log (last 40 lines) ---\n\(log)")
    }
}
