import Foundation

/// Whether the worker's disk-cache folder takes writes: checked at start
/// (a worker that cannot store anything refuses to start), after a job
/// fails with `cache_write_failed`, and while the worker waits for the
/// folder to recover.
///
/// The check writes, reads the size of and removes a small file of its own
/// (`.warmer-probe-PID-RANDOM`),
/// so it finds what a job's write would: a read-only mount, missing
/// permissions, a full disk, a removed folder.
package struct CacheFolderHealth: Sendable {
    /// The disk cache's folder.
    package let directory: URL

    /// The health of the folder at `directory`.
    package init(directory: URL) {
        self.directory = directory
    }

    /// `nil` when a file can be written in the folder now, else why not.
    package func problem() -> String? {
        // A name of its own per check: lanes may check at the same moment.
        let probe = directory.appendingPathComponent(".warmer-probe-\(getpid())-\(UUID().uuidString.prefix(8))")
        let bytes = Data("warmer cache folder check\n".utf8)
        do {
            try bytes.write(to: probe)
            defer { try? FileManager.default.removeItem(at: probe) }
            let size = try FileManager.default.attributesOfItem(atPath: probe.path)[.size] as? Int
            guard size == bytes.count else { return "\(directory.path): a test file was not written in full" }
            return nil
        } catch {
            return "\(directory.path) is not writable: \(Self.reason(error))"
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
