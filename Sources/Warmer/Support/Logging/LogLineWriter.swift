import Foundation
import Synchronization

/// Writes whole log lines to standard error, one `write(2)` per line, one
/// line at a time: lines logged from several threads never interleave, even
/// when they are longer than a pipe's atomic write size.
final class LogLineWriter: Sendable {
    /// Serialises the writes; holds nothing else.
    private let lock = Mutex<Void>(())
    private let descriptor: Int32
    /// Where lines go instead, when not to the descriptor.
    private let divert: (@Sendable (String) -> Void)?

    /// A writer to `descriptor` (standard error by default).
    init(descriptor: Int32 = STDERR_FILENO) {
        self.descriptor = descriptor
        divert = nil
    }

    /// A writer that hands each line to `divert` instead (`warmer watch`
    /// prints log lines above its board, so they do not break it).
    init(divertingTo divert: @escaping @Sendable (String) -> Void) {
        descriptor = STDERR_FILENO
        self.divert = divert
    }

    /// Writes `line` and a newline.
    func write(_ line: String) {
        if let divert { return divert(line) }
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return // standard error is gone: nothing sensible is left to do
                    }
                }
            }
        }
    }
}
