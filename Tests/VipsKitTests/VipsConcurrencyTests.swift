import Dispatch
import Foundation
import Synchronization
import Testing
@testable import VipsKit

/// libvips shared by many threads, as a worker's decode and processing
/// queues share it.
///
/// Every resize builds a `reducev` whose kernel depends on the scale, and
/// with libvips' ORC vector paths on, each one compiles an ORC program and
/// frees it when its image is released. liborc 0.4.33 frees code memory
/// without a lock, so many threads resizing to many distinct sizes at once
/// corrupted its code-memory list (issue 23: SIGSEGV in
/// `orc_code_chunk_merge`). With the vector paths on, the stress test below
/// at 2,000 rounds a thread killed the test process (SIGSEGV or SIGABRT in
/// liborc, after 5 to 11 s) in 2 of 3 runs. Warmer turns them off
/// (`Vips.shared`): `libvipsCompilesNoORCProgramsInAServer` guards that,
/// the stress test now runs 300 rounds (every scale once a thread, about
/// 2 s instead of 13) to check the sizes under concurrency, and
/// `make bench-soak`'s kernel mode runs the long proof.
@Suite("VipsKit from many threads")
struct VipsConcurrencyTests {
    @Test func libvipsCompilesNoORCProgramsInAServer() throws {
        let vips = try Vips.shared.get()
        #expect(!vips.vectorPathsEnabled)
    }

    @Test func manyThreadsResizingToDistinctKernelSizesAtOnceGetEverySizeRight() throws {
        // Given 8 threads, each resizing a small 8-bit image (where the
        // kernels would be ORC programs) through 300 distinct scales: each
        // thread meets every scale once (7 and 300 share no factor), each
        // in an order of its own, so every kernel size is built by several
        // threads at once
        let vips = try Vips.shared.get()
        let threads = 8, rounds = 300, side = 48
        let wrongSizes = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        // When they all run at once
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                let canvas = try vips.black(width: side, height: side)
                try canvas.fillCircle(value: 255, centreX: side / 2, centreY: side / 2, radius: side / 3)
                for round in 0..<rounds {
                    let scale = 0.05 + Double((round * 7 + thread * 13) % 300) / 400
                    let resized = try canvas.resized(horizontalScale: scale, verticalScale: scale).materialised()
                    let expected = Int((Double(side) * scale).rounded())
                    if abs(resized.width - expected) > 1 || abs(resized.height - expected) > 1 {
                        wrongSizes.withLock { $0.append("scale \(scale): \(resized.width)×\(resized.height)") }
                    }
                }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
            }
        }
        // Then the process is alive and every image has the size its scale gives
        #expect(failures.withLock { $0 } == [])
        #expect(wrongSizes.withLock { $0 } == [])
    }
}
