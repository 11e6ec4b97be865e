import Foundation
import TestSupport

/// What the event-stream tests ask of `warmer serve`: batches posted over
/// HTTP, Server-Sent Event requests, and the process's own connections.
extension ServeProcess {
    /// `POST /v1/queues/{queue}/batches` of `urls` as an intake document; the new batch's id.
    func postBatch(_ urls: [URL], queue: QueueProbe) async throws -> String {
        let document = try JSONSerialization.data(withJSONObject: ["v": 1, "urls": urls.map(\.absoluteString)] as [String: Any])
        let answer = try await request("POST", "/v1/queues/\(queue.name)/batches", body: String(decoding: document, as: UTF8.self))
        guard answer.status == 201, let batch = answer.json["batch"] as? String else {
            throw HarnessError("POST of a batch answered \(answer)")
        }
        return batch
    }

    /// A Server-Sent Events request to this server, with the read token.
    func events(_ path: String, lastEventID: String? = nil) throws -> EventStreamClient {
        var headers = ["Authorization": "Bearer \(Self.readToken)"]
        if let lastEventID { headers["Last-Event-ID"] = lastEventID }
        return try EventStreamClient(port: port, path: path, headers: headers)
    }

    /// The local ports of this process's TCP connections (from /proc), to
    /// find its connections in Redis' `CLIENT LIST` (whose `addr` is the
    /// client's end).
    func connectionPorts() async throws -> Set<Int> {
        let pid = process.processIdentifier
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        let inodes = Set(fds.compactMap { fd -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
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
