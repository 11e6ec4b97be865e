import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// Issue 23: hostile images took a worker with `--memory-budget 1024` past
/// 2 GiB of RSS. A decode's reservation counted its result only, not what
/// the loader holds beside it: a progressive JPEG's coefficients (even for a
/// shrink-on-load thumbnail), an interlaced PNG's whole-image buffer, a GIF's
/// RGBA frame buffer, WebP's and HEIF's own decode buffers.
@Suite("Loader buffers in the memory budget")
struct LoaderBuffersTests {
    private let thumbnail = ThumbnailOptions(maxPixelSize: 100)

    @Test func aProgressiveJPEGThumbnailReservesEveryCoefficientTheDecoderHolds() throws {
        // A 1000×800 progressive JPEG at Q 95 (no chroma subsampling): libjpeg
        // holds 1000 × 800 × 3 coefficients of 2 bytes (4.8 MB) whatever the
        // scale it decodes at.
        let files = try ImageFiles()
        let progressive = try files.make(width: 1000, height: 800, saveOptions: "[Q=95,interlace]")
        let coefficients = 1000 * 800 * 3 * 2
        #expect(LoaderBuffers.jpegCoefficientBytes(progressive) == coefficients)

        let small = MemoryBudget(capacity: 4 << 20)
        let error = #expect(throws: ImageProcessingError.self) {
            try ImageCodec.decode(progressive, thumbnail: thumbnail, budget: small)
        }
        #expect(error?.code == "over_memory_budget")

        let roomy = MemoryBudget(capacity: 16 << 20)
        let image = try ImageCodec.decode(progressive, thumbnail: thumbnail, budget: roomy)
        #expect(roomy.peak == 100 * 80 * 3 * 2 + coefficients)
        // Once decoded, the image holds only its own pixels.
        #expect(roomy.used == 100 * 80 * 3)
        withExtendedLifetime(image) {}
    }

    @Test func aBaselineJPEGThumbnailStillReservesOnlyItsThumbnail() throws {
        let files = try ImageFiles()
        let baseline = try files.make(width: 1000, height: 800, saveOptions: "[Q=95]")
        #expect(LoaderBuffers.jpegCoefficientBytes(baseline) == nil)
        let budget = MemoryBudget(capacity: 1 << 20)
        let image = try ImageCodec.decode(baseline, thumbnail: thumbnail, budget: budget)
        #expect(budget.peak == 100 * 80 * 3 * 2)
        withExtendedLifetime(image) {}
    }

    @Test func theCoefficientsFollowTheChromaSubsampling() throws {
        // Q 75: 4:2:0, the two chroma components at half width and height.
        let files = try ImageFiles()
        let subsampled = try files.make(width: 1000, height: 800, saveOptions: "[Q=75,interlace]")
        let frame = try #require(JPEGFrameHeader(subsampled))
        #expect(frame.isProgressive)
        #expect(frame.width == 1000 && frame.height == 800)
        #expect(frame.components.map(\.horizontal) == [2, 1, 1])
        let luma = 1008 * 800  // 125 × 100 blocks, the width rounded up to whole MCUs (126)
        let chroma = 504 * 400
        #expect(LoaderBuffers.jpegCoefficientBytes(subsampled) == (luma + 2 * chroma) * 2)
    }

    @Test func anInterlacedPNGReservesItsWholeImageBufferAtItsOwnDepth() throws {
        let files = try ImageFiles()
        let interlaced = try files.make(width: 600, height: 400, format: "png", alpha: true, colourspace: "rgb16",
                                        saveOptions: "[interlace]")
        #expect(LoaderBuffers.pngInterlacedBytes(interlaced, width: 600, height: 400) == 600 * 400 * 4 * 2)
        let budget = MemoryBudget(capacity: 64 << 20)
        let image = try ImageCodec.decode(interlaced, budget: budget)
        // The 8-bit RGBA result, and libpng's 16-bit RGBA buffer beside it.
        #expect(budget.peak == 600 * 400 * 4 + 600 * 400 * 8)
        withExtendedLifetime(image) {}

        let plain = try files.make(width: 600, height: 400, format: "png")
        #expect(LoaderBuffers.pngInterlacedBytes(plain, width: 600, height: 400) == nil)
    }

    @Test func aGIFReservesItsRGBAFrameBuffer() throws {
        let files = try ImageFiles()
        let gif = try files.make(width: 600, height: 400, format: "gif")
        let budget = MemoryBudget(capacity: 64 << 20)
        let image = try ImageCodec.decode(gif, budget: budget)
        #expect(budget.peak >= 600 * 400 * image.bandCount + 600 * 400 * 4)
        withExtendedLifetime(image) {}
    }
}
