#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// glibc's malloc arenas, limited for a long-running worker.
///
/// glibc gives each thread that allocates while another holds the main
/// arena an arena of its own, up to 8 per core, and keeps freed memory in
/// each: a worker's many threads (curl, Redis, libvips, stage queues) made
/// its RSS creep up for tens of thousands of jobs (issue 10, bench/soak.sh).
/// Two arenas keep allocation fast with far less memory held. The
/// `MALLOC_ARENA_MAX` environment variable, when set, still wins.
enum MallocArenas {
    /// Arenas used when the environment says nothing.
    static let defaultLimit: Int32 = 2
    /// glibc's `M_ARENA_MAX` parameter number (malloc.h).
    private static let arenaMaxParameter: Int32 = -8

    /// Limits the arenas; call before the process starts its threads.
    static func limit() {
        #if canImport(Glibc)
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        // malloc.h is not part of Swift's Glibc module: look mallopt up.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(arenaMaxParameter, defaultLimit)
        #endif
    }
}
