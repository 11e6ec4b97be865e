import Foundation

/// Tells systemd how the worker is doing, through the `sd_notify` protocol:
/// one datagram per message to the unix socket in `NOTIFY_SOCKET`
/// (`READY=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`). Without
/// `NOTIFY_SOCKET` (not started by a `Type=notify` unit) every call does
/// nothing.
///
/// Written here rather than linked from libsystemd: the protocol is one
/// `sendto` of a text datagram, and the worker's image runs where
/// libsystemd is absent (containers).
struct SystemdNotifier: Sendable {
    /// The socket path; a leading `@` names an abstract socket.
    let socketPath: String?
    /// The watchdog period systemd expects (`WATCHDOG_USEC`), if any.
    let watchdogPeriod: Duration?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // WATCHDOG_PID, when set, names the process the watchdog is for.
        let forThisProcess = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        watchdogPeriod = environment["WATCHDOG_USEC"].flatMap(Int64.init).flatMap {
            $0 > 0 && forThisProcess ? Duration.microseconds($0) : nil
        }
    }

    /// Whether a notification socket was given.
    var isEnabled: Bool { socketPath != nil }

    /// Sends `message` (e.g. `READY=1`); returns whether it was sent.
    @discardableResult
    func notify(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 } // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL), address, length)
            }
        }
        return sent == bytes.count
    }
}
