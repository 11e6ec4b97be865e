#if canImport(Glibc)
import Glibc
#endif
import Foundation
import WarmerSupport

/// glibc's malloc, tuned for a long-running process that handles images.
///
/// - **Arenas.** glibc gives each thread that allocates while another holds
///   the main arena an arena of its own, up to 8 per core, and keeps freed
///   memory in each: a worker's many threads (curl, Redis, libvips, stage
///   queues) made its RSS creep up for tens of thousands of jobs (issue 10,
///   bench/soak.sh). Two arenas keep allocation fast with far less held.
/// - **Large blocks.** By default glibc raises its mmap threshold each time
///   a large mmapped block is freed (up to 32 MiB), so after the first few
///   images every pixel buffer comes from the heap, and what is freed stays
///   in the process. Fixing the mmap threshold at 512 KiB and the trim
///   threshold at 2 MiB (setting them turns the raising off) gives each
///   large buffer back to the system when it is freed: a processed worker's
///   peak RSS falls from about 185 to about 109 MiB on
///   `make bench-processed`. At glibc's own starting values (128 KiB for
///   both) it fell to 103 MiB, but every mid-sized buffer then cost a
///   fresh mapping and its page faults: about 4% fewer thumbnails a second
///   (docs/memory.md, "glibc's malloc settings").
///
/// - **Holes.** Blocks under the mmap threshold (a thumbnail's pixels, its
///   JPEG, a libvips region) come from the heap, and the memory cache keeps
///   some of them for long while the rest come and go around them. When the
///   sizes keep changing (a queue whose thumbnail size changes, issue 23's
///   kernel soak), freed blocks are too small for the next ones, the heap
///   grows past them, and the free pages inside it stay resident: glibc
///   only gives back the top of the heap by itself. `trimPeriodically()`
///   calls `malloc_trim(0)` once a second, which hands every free page
///   inside the heaps back to the system (`MADV_DONTNEED`): the soak's RSS
///   crept 4–5 MiB a minute without it (bench/README.md, "Soak").
///
/// `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`
/// or `GLIBC_TUNABLES` in the environment, when set, win.
enum MallocArenas {
    /// Arenas used when the environment says nothing.
    static let defaultLimit: Int32 = 2
    /// Blocks from this size up get a mapping of their own, in bytes.
    static let mmapThreshold: Int32 = 512 << 10
    /// Free memory at the top of the heap above this goes back, in bytes.
    static let trimThreshold: Int32 = 2 << 20
    // glibc's mallopt parameter numbers (malloc.h).
    private static let trimThresholdParameter: Int32 = -1
    private static let mmapThresholdParameter: Int32 = -3
    private static let arenaMaxParameter: Int32 = -8

    /// Tunes malloc; call before the process starts its threads.
    static func limit() {
        #if canImport(Glibc)
        let environment = ProcessInfo.processInfo.environment
        // malloc.h is not part of Swift's Glibc module: look mallopt up.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        if environment["MALLOC_ARENA_MAX"] == nil {
            _ = mallopt(arenaMaxParameter, defaultLimit)
        }
        let tuned = ["MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"].contains { environment[$0] != nil }
        if !tuned {
            _ = mallopt(mmapThresholdParameter, mmapThreshold)
            _ = mallopt(trimThresholdParameter, trimThreshold)
        }
        #endif
    }

    /// Seconds between two trims.
    static let trimInterval = 1.0

    /// Starts a thread that gives the free pages inside malloc's heaps back
    /// to the system every `trimInterval` (see "Holes" above). A trim takes
    /// each arena's lock for the time it walks its free blocks: well under
    /// a millisecond for a worker's heaps.
    static func trimPeriodically() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        let mallocTrim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        DedicatedThread.start(named: DedicatedThread.name("malloctrim")) {
            while true {
                Thread.sleep(forTimeInterval: trimInterval)
                _ = mallocTrim(0)
            }
        }
        #endif
    }
}
