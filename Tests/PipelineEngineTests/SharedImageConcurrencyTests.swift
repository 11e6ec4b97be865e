import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// Issue 10, finding 2: a decoded image shared by several tasks (a memory
/// cache hit, `[resize]` feeding both `[resize, blur]` and an encode) is
/// processed and encoded by several threads at once. libvips keeps per-image
/// bookkeeping that it creates lazily without a lock (the reorder data of
/// `vips__reorder_set_input`), so handing one `VipsImage` to several threads
/// corrupted the heap. Every operation now works on a view of its own.
@Suite("Shared decoded images")
struct SharedImageConcurrencyTests {
    @Test func manyThreadsProcessAndEncodeOneDecodedImageAtOnce() throws {
        // Given small decoded images, RGB and RGBA (small, so that most of
        // the time goes into building libvips pipelines, where the race was)
        let files = try ImageFiles()
        let sources = [
            try ImageCodec.decode(files.make(width: 48, height: 32, format: "jpg")),
            try ImageCodec.decode(files.make(width: 40, height: 40, format: "png", alpha: true)),
        ]
        let failures = Mutex<[String]>([])
        let sizes = Mutex<Set<String>>([])

        // When, round after round, a fresh image is shared by 8 threads that
        // each build a new image from it at the same moment (100 rounds,
        // 800 operations: about 2 s of two cores in a debug build)
        for round in 0..<100 {
            let source = try #require(sources.randomElement())
            let image = try ImageCodec.process(source, with: .resize(.init(width: 20 + round % 7)))
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                do {
                    switch index % 4 {
                    case 0:
                        let resized = try ImageCodec.process(image, with: .resize(.init(width: 10)))
                        sizes.withLock { _ = $0.insert("\(resized.width)") }
                    case 1: _ = try ImageCodec.process(image, with: .gaussianBlur(radius: 1.5))
                    case 2: _ = try ImageCodec.process(image, with: .roundedCorners(radius: 4))
                    default:
                        let encoded = try ImageCodec.encode(image, as: OutputEncoding(format: index % 2 == 0 ? .png : .jpeg))
                        guard try ImageCodec.decode(encoded).width == image.width else {
                            throw ImageProcessingError.encodingFailed("the size changed")
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }

        // Then nothing failed (or crashed), and the results have the expected size
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(sizes.withLock { $0 } == ["10"])
    }

    @Test func aProcessedImageOutlivesTheImageItCameFrom() throws {
        // Given an image processed from a decoded image that then goes away
        let files = try ImageFiles()
        var source: DecodedImage? = try ImageCodec.decode(files.make(width: 300, height: 200, format: "png"))
        weak let weakSource = source
        let blurred = try ImageCodec.process(try #require(source), with: .gaussianBlur(radius: 2))
        source = nil

        // Then the source is released, and the result is still whole and encodable
        #expect(weakSource == nil)
        let encoded = try ImageCodec.encode(blurred, as: OutputEncoding(format: .png))
        #expect(try ImageCodec.decode(encoded).width == 300)
    }
}
