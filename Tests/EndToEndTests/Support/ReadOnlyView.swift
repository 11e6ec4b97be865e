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
        let process = try? ChildProcess("/bin/umount", [url.path], standardOutput: .inherited, standardError: .inherited)
        process?.waitUntilExit()
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ arguments: [String]) throws {
        let exit = try ChildProcess("/bin/mount", arguments, standardOutput: .inherited, standardError: .inherited)
            .waitUntilExit()
        guard exit.status == 0, exit.exited else {
            throw HarnessError("/bin/mount \(arguments.joined(separator: " ")) exited \(exit.status)")
        }
    }
}
