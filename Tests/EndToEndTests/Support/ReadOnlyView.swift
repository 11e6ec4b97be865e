import Foundation
import TestSupport

/// A read-only view of a folder: a read-only bind mount of it at another
/// path, as a deployment mounts the workers' cache volume `readOnly` into
/// `warmer serve`'s pods. Root only (tests that use it are enabled on root).
struct ReadOnlyView {
    /// Where the folder is seen read-only.
    let url: URL

    /// Mounts `folder` read-only at a new temporary path.
    init(of folder: URL) throws {
        url = try TestEnvironment.temporaryDirectory("readonly-view")
        try Self.run(["--bind", folder.path, url.path])
        do {
            try Self.run(["-o", "remount,bind,ro", url.path])
        } catch {
            remove()
            throw error
        }
    }

    /// Unmounts the view and removes its mount point.
    func remove() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = [url.path]
        try? process.run()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/mount")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("/bin/mount \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}
