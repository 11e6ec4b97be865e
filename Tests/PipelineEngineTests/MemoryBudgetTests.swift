import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// Issue 10, finding 5: one 10000×10000 image took a worker to 645 MiB. Decodes
/// now reserve their pixels in a `MemoryBudget` first.
@Suite("Memory budget")
struct MemoryBudgetTests {
    @Test func reservationsAreHeldUntilReleasedAndGrantedInOrder() throws {
        let budget = MemoryBudget(capacity: 100)
        var first: MemoryBudget.Reservation? = try budget.reserve(60, shouldStop: { false })
        #expect(budget.used == 60)

        // A second reservation that does not fit waits until the first is released
        let granted = Flag()
        let waiter = Thread {
            let second = try? budget.reserve(70, shouldStop: { false })
            granted.set(second != nil)
            withExtendedLifetime(second) {}
        }
        waiter.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!granted.value)
        first = nil
        #expect(eventuallySync { granted.value })
        withExtendedLifetime(first) {}
        #expect(eventuallySync { budget.used == 0 })
        #expect(budget.peak == 70)
    }

    @Test func aReservationLargerThanTheBudgetIsRefusedAtOnce() {
        let budget = MemoryBudget(capacity: 100)
        #expect(throws: MemoryBudget.Refusal.largerThanBudget) { try budget.reserve(101, shouldStop: { false }) }
    }

    @Test func aWaitingReservationEndsWhenItsTaskStops() throws {
        let budget = MemoryBudget(capacity: 100)
        let held = try budget.reserve(100, shouldStop: { false })
        let stop = Flag()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { stop.set(true) }
        #expect(throws: MemoryBudget.Refusal.stopped) {
            try budget.reserve(10, shouldStop: { stop.value })
        }
        withExtendedLifetime(held) {}
    }

    @Test func aDecodedImageHoldsItsPixelsInTheBudgetUntilReleased() throws {
        let files = try ImageFiles()
        let budget = MemoryBudget(capacity: 64 << 20)
        var image: DecodedImage? = try ImageCodec.decode(files.make(width: 400, height: 300), budget: budget)
        #expect(budget.used == 400 * 300 * 3)
        var blurred: DecodedImage? = try ImageCodec.process(try #require(image), with: .gaussianBlur(radius: 1), budget: budget)
        #expect(budget.used == 2 * 400 * 300 * 3)
        image = nil
        blurred = nil
        withExtendedLifetime((image, blurred)) {}
        #expect(budget.used == 0)
    }

    @Test func anImageLargerThanTheWholeBudgetFailsWithAReason() throws {
        let files = try ImageFiles()
        let budget = MemoryBudget(capacity: 1 << 20)
        let large = try files.make(width: 1000, height: 800)
        let error = #expect(throws: ImageProcessingError.self) { try ImageCodec.decode(large, budget: budget) }
        #expect(error?.code == "over_memory_budget")
        #expect(error?.description.contains("memory budget") == true)
        // A thumbnail of the same image, decoded by shrink-on-load, fits.
        #expect(try ImageCodec.decode(large, thumbnail: ThumbnailOptions(maxPixelSize: 100), budget: budget).width == 100)
    }

    @Test func aPNGThumbnailReservesEveryPixelItDecodesAJPEGOnlyItsThumbnail() throws {
        // A PNG has no smaller version to decode: its thumbnail decodes all
        // 1000×800 pixels first (2.4 MB), which a 1 MiB budget cannot hold.
        let files = try ImageFiles()
        let budget = MemoryBudget(capacity: 1 << 20)
        let png = try files.make(width: 1000, height: 800, format: "png")
        let error = #expect(throws: ImageProcessingError.self) {
            try ImageCodec.decode(png, thumbnail: ThumbnailOptions(maxPixelSize: 100), budget: budget)
        }
        #expect(error?.code == "over_memory_budget")
        // Within a budget that holds it, the decode reserves the full decode
        // plus the thumbnail; the result then keeps its own size.
        let roomy = MemoryBudget(capacity: 8 << 20)
        let thumbnail = try ImageCodec.decode(png, thumbnail: ThumbnailOptions(maxPixelSize: 100), budget: roomy)
        #expect(roomy.peak == 1000 * 800 * 3 + 100 * 80 * 3 * 2)
        #expect(roomy.used == 100 * 80 * 3)
        withExtendedLifetime(thumbnail) {}
        // A JPEG of the same size shrinks on load and reserves only its thumbnail, twice.
        let small = MemoryBudget(capacity: 1 << 20)
        let jpeg = try ImageCodec.decode(files.make(width: 1000, height: 800), thumbnail: ThumbnailOptions(maxPixelSize: 100), budget: small)
        #expect(small.peak == 100 * 80 * 3 * 2)
        withExtendedLifetime(jpeg) {}
    }

    @Test func concurrentDecodesWaitForRoomAndNeverExceedTheBudget() throws {
        // Given a budget that holds one 1000×800 RGB image (2.4 MB), not two
        let files = try ImageFiles()
        let data = try files.make(width: 1000, height: 800)
        let budget = MemoryBudget(capacity: 3_000_000)
        let failures = Mutex<[String]>([])

        // When 6 threads decode it at once, each holding its image a moment
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let image = try ImageCodec.decode(data, budget: budget)
                Thread.sleep(forTimeInterval: 0.05)
                withExtendedLifetime(image) {}
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }

        // Then every decode succeeded, one at a time
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(budget.peak == 2_400_000)
        #expect(budget.used == 0)
    }
}

/// A boolean several threads read and write.
private final class Flag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set(_ value: Bool) { state.withLock { $0 = value } }
}

/// Polls `condition` for up to 5 s from a plain thread.
private func eventuallySync(_ condition: () -> Bool) -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}
