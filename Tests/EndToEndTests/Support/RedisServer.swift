import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RedisKit
import Scheduler
import TestSupport

/// A redis-server of a test's own, for tests that must kill and restart Redis
/// without disturbing the shared one of `scripts/test.sh`.
///
/// It listens on 127.0.0.1 on a port picked at start, keeps its data in
/// `directory` with an append-only file fsynced on every write (so a SIGKILL
/// loses nothing acknowledged) and logs to `directory/redis.log`. `restart()`
/// brings it back on the same port and directory, with the same data.
///
/// Call `stop()` when done (a `defer` right after `start`): a test's own
/// redis-server is not one of the services `scripts/test.sh` cleans up.
final class RedisServer: @unchecked Sendable {
    // @unchecked: the current `process` is only swapped under `lock`.
    /// The port it listens on.
    let port: Int
    /// Its working folder: the append-only files and `redis.log`.
    let directory: URL
    private let lock = NSLock()
    private var process: ChildProcess?

    /// `redis://127.0.0.1:PORT`.
    var url: String { "redis://127.0.0.1:\(port)" }
    /// The end of its log, for failure messages.
    var logTail: String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    private init(port: Int, directory: URL) {
        self.port = port
        self.directory = directory
    }

    /// Starts `redis-server` (from PATH) on a free port with its data in a new
    /// temporary folder, and waits until it answers PING. Tries a few ports in
    /// case another program takes the one picked before Redis binds it.
    ///
    /// - Parameter arguments: more `redis-server` flags (e.g.
    ///   `--busy-reply-threshold 100`) for this first run.
    static func start(arguments: [String] = []) async throws -> RedisServer {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let directory = try TestEnvironment.temporaryDirectory("redis")
            let server = RedisServer(port: try freeLoopbackPort(), directory: directory)
            do {
                try await server.launch(arguments: arguments)
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError ?? HarnessError("redis-server did not start")
    }

    /// Starts it again on the same port and folder (after `kill()`) and waits
    /// until it answers PING, its data loaded from the append-only file.
    ///
    /// - Parameters:
    ///   - arguments: more `redis-server` flags for this run (e.g.
    ///     `--key-load-delay`, to make loading last).
    ///   - untilLoaded: when false, returns as soon as it answers at all,
    ///     `LOADING` included.
    func restart(arguments: [String] = [], untilLoaded: Bool = true) async throws {
        try await launch(arguments: arguments, untilLoaded: untilLoaded)
    }

    /// Whether it answers PING with `LOADING` (still loading its data) now.
    func isLoading() async -> Bool {
        guard let client = try? RedisClient(url: RedisURL(parsing: url), name: "test-own-redis", timeout: .seconds(2)) else {
            return false
        }
        do {
            _ = try await client.send(["PING"])
            return false
        } catch {
            return error.description.contains("LOADING")
        }
    }

    /// Whether the server process is running.
    var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    /// SIGKILL, as a crash: no shutdown, no final write. Waits until it is gone.
    func kill() async {
        guard let process = lock.withLock({ self.process }) else { return }
        process.send(SIGKILL)
        _ = await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(10)) { !process.isRunning }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its
    /// folder. Synchronous, for `defer`; safe to call more than once.
    func stop() {
        let process = lock.withLock { () -> ChildProcess? in
            defer { self.process = nil }
            return self.process
        }
        if let process, process.isRunning {
            process.send(SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning {
                process.send(SIGKILL)
                process.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }

    /// Starts the process and waits until it answers PING.
    private func launch(arguments: [String] = [], untilLoaded: Bool = true) async throws {
        let process = try ChildProcess("/usr/bin/env", [
            "redis-server", "--bind", "127.0.0.1", "--port", String(port), "--daemonize", "no",
            "--appendonly", "yes", "--appendfsync", "always", "--save", "",
            "--dir", directory.path, "--logfile", directory.appendingPathComponent("redis.log").path,
        ] + arguments)
        lock.withLock { self.process = process }
        let client = try RedisClient(url: RedisURL(parsing: url), name: "test-own-redis", timeout: .seconds(2))
        let ready = await eventually(timeout: .seconds(20), pollingEvery: .milliseconds(50)) {
            guard process.isRunning else { return true }
            do {
                return try await client.send(["PING"]).string == "PONG"
            } catch {
                return !untilLoaded && "\(error)".contains("LOADING")
            }
        }
        guard ready, process.isRunning else {
            process.send(SIGKILL)
            throw HarnessError("redis-server did not start on port \(port):\n\(logTail)")
        }
    }
}

/// A TCP port nothing listens on at 127.0.0.1 now (the kernel's pick for port
/// 0). Another program could take it before the caller binds it.
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound else { throw HarnessError("could not bind a loopback port: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
