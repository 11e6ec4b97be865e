import Foundation
import Testing
import TestSupport

/// Under a systemd `Type=notify` unit with `WatchdogSec=`, the worker says
/// `READY=1`, feeds the watchdog while its loops turn, and says
/// `STOPPING=1` when it drains — read here from a real unix datagram
/// socket, as systemd reads them.
@Suite(.serialized)
struct SystemdNotifyTests {
    @Test func theWorkerTellsSystemdItIsReadyAliveAndStopping() async throws {
        let socket = try NotifySocket()
        defer { socket.close() }
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let worker = try RunningWorker(queue: queue, cacheDirectory: cache, concurrency: 2, gracePeriod: 5,
                                       environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "2000000"])
        try await worker.waitUntilReady()

        let ready = try await socket.receive(until: { $0.contains("READY=1") })
        #expect(ready.contains { $0.hasPrefix("READY=1") }, "\(ready)")
        let alive = try await socket.receive(until: { $0.filter { $0 == "WATCHDOG=1" }.count >= 2 })
        #expect(alive.filter { $0 == "WATCHDOG=1" }.count >= 2, "\(alive)")

        worker.requestStop()
        let stopping = try await socket.receive(until: { $0.contains { $0.hasPrefix("STOPPING=1") } })
        #expect(stopping.contains { $0.hasPrefix("STOPPING=1") }, "\(stopping)\n\(worker.log)")
        let exit = try #require(await worker.waitForExit(), "\(worker.log)")
        #expect(exit.exited && exit.status == 0, "\(exit)")
    }
}

/// A unix datagram socket bound in a temporary folder: what systemd listens on.
private final class NotifySocket: @unchecked Sendable {
    // @unchecked: the descriptor is only read from one test task at a time.
    let path: String
    private let descriptor: Int32

    init() throws {
        let folder = try TestEnvironment.temporaryDirectory("notify")
        path = folder.appendingPathComponent("notify.sock").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HarnessError("bind(\(path)) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Collects messages (one per line of each datagram) until `done` says so, for at most 20 s.
    func receive(until done: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
        try await offCooperativePool { [descriptor] in
            var messages: [String] = []
            let deadline = Date().addingTimeInterval(20)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !done(messages), Date() < deadline {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count > 0 {
                    messages += String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
                }
            }
            return messages
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
        unlink(path)
    }
}
