import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("Image processing")
struct ImageProcessingTests {
    let files: ImageFiles
    /// 400×300 RGB noise.
    let landscape: DecodedImage

    init() throws {
        files = try ImageFiles()
        landscape = try ImageCodec.decode(files.make(width: 400, height: 300, format: "png"))
    }

    func size(_ image: DecodedImage) -> [Int] { [image.width, image.height] }

    func resized(_ resize: ImageProcessor.Resize, _ image: DecodedImage? = nil) throws -> DecodedImage {
        try ImageCodec.process(image ?? landscape, with: .resize(resize))
    }

    @Test func aspectFitFitsInsideTheTarget() throws {
        #expect(try size(resized(.init(width: 200, height: 200))) == [200, 150])
        #expect(try size(resized(.init(width: 100))) == [100, 75])
        #expect(try size(resized(.init(height: 60))) == [80, 60])
    }

    @Test func aspectFillCoversTheTargetAndCropCutsItsCentre() throws {
        #expect(try size(resized(.init(width: 200, height: 200, contentMode: .aspectFill))) == [267, 200])
        #expect(try size(resized(.init(width: 200, height: 200, contentMode: .aspectFill, crop: true))) == [200, 200])
        #expect(try size(resized(.init(width: 150, height: 50, contentMode: .aspectFill, crop: true))) == [150, 50])
    }

    @Test func withoutUpscaleASmallerImageIsLeftAsIs() throws {
        let fit = try resized(.init(width: 800, height: 800))
        #expect(fit === landscape)
        let fill = try resized(.init(width: 1000, height: 900, contentMode: .aspectFill, crop: true))
        #expect(fill === landscape)
        // Too wide but not too tall: nothing is enlarged, the extra height is cropped.
        #expect(try size(resized(.init(width: 500, height: 100, contentMode: .aspectFill, crop: true))) == [400, 100])
    }

    @Test func withUpscaleASmallerImageIsEnlarged() throws {
        #expect(try size(resized(.init(width: 800, height: 800, upscale: true))) == [800, 600])
        #expect(try size(resized(.init(width: 500, height: 500, contentMode: .aspectFill, crop: true, upscale: true))) == [500, 500])
    }

    /// Issue 10, finding 4: `resize=30000x0,upscale` took 45 s and 3.5 GiB.
    @Test func aResizeWhoseOutputBreaksTheLimitsIsRefusedBeforeAnyWork() throws {
        let limits = ProcessingLimits()
        // 400×300 upscaled to 10000 wide: 10000×7500 = 75 MP, over the 40 MP default
        let error = #expect(throws: ImageProcessingError.self) {
            try ImageCodec.process(landscape, with: .resize(.init(width: 10_000, upscale: true)), limits: limits)
        }
        #expect(error?.code == "invalid_processing")
        #expect(error?.description.contains("10000×7500") == true, "\(String(describing: error))")
        #expect(throws: ImageProcessingError.invalidProcessing("blur sigma 1000.0 is outside 0-50")) {
            try ImageCodec.process(landscape, with: .gaussianBlur(radius: 1000), limits: limits)
        }
        // The same resize within larger limits runs
        let wide = ProcessingLimits(maxOutputSide: 10_000, maxOutputPixelCount: 80_000_000)
        #expect(try ImageCodec.process(landscape, with: .resize(.init(width: 2000, upscale: true)), limits: wide).width == 2000)
    }

    @Test func resizeLandsExactlyOnOddTargetSizes() throws {
        let odd = try ImageCodec.decode(files.make(width: 997, height: 601, format: "png"))
        for width in [1, 3, 17, 100, 333, 500, 996] {
            let plan = try #require(ResizePlan(.init(width: width), width: 997, height: 601))
            let result = try resized(.init(width: width), odd)
            #expect([result.width, result.height] as [Int] == [width, plan.scaledHeight], "width \(width)")
        }
        for (width, height) in [(123, 45), (7, 500), (600, 599), (1, 1)] {
            let result = try resized(.init(width: width, height: height, contentMode: .aspectFill, crop: true), odd)
            #expect([result.width, result.height] as [Int] == [width, height])
            let fit = try resized(.init(width: width, height: height), odd)
            #expect(fit.width == width || fit.height == height, "fit \(width)×\(height) gave \(fit)")
            #expect(fit.width <= width && fit.height <= height, "fit \(width)×\(height) gave \(fit)")
        }
    }

    @Test func resizeWithoutWidthOrHeightFails() throws {
        let resize = ImageProcessor.Resize(width: 0, height: nil)
        let error = #expect(throws: ImageProcessingError.self) { try resized(resize) }
        guard case .processingFailed(let processor, _) = error else {
            Issue.record("expected processingFailed, got \(String(describing: error))")
            return
        }
        #expect(processor == "resize(w=0,h=0,fit,crop=0,up=0)")
    }

    @Test func blurKeepsTheSizeAndChangesPixels() throws {
        let blurred = try ImageCodec.process(landscape, with: .gaussianBlur(radius: 4))
        #expect(size(blurred) == [400, 300])
        #expect(blurred.bandCount == landscape.bandCount)
        let points = [(10, 10), (50, 60), (200, 150), (333, 222), (399, 299)]
        let changed = try points.filter { try blurred.pixel(x: $0.0, y: $0.1) != landscape.pixel(x: $0.0, y: $0.1) }
        #expect(changed.count >= 3)
        #expect(try ImageCodec.process(landscape, with: .gaussianBlur(radius: 0)) === landscape)
        #expect(throws: ImageProcessingError.self) { try ImageCodec.process(landscape, with: .gaussianBlur(radius: -1)) }
    }

    @Test func blurKeepsAnOpaqueAlphaOpaque() throws {
        let rgba = try ImageCodec.decode(files.make(width: 60, height: 40, format: "png", alpha: true))
        let blurred = try ImageCodec.process(rgba, with: .gaussianBlur(radius: 3))
        #expect(blurred.bandCount == 4)
        #expect(try blurred.pixel(x: 30, y: 20)[3] == 255)
    }

    @Test func circleCropsTheCentreSquareAndMakesCornersTransparent() throws {
        #expect(!landscape.hasAlpha)
        let circle = try ImageCodec.process(landscape, with: .circle)
        #expect(size(circle) == [300, 300])
        #expect(circle.hasAlpha)
        #expect(circle.bandCount == 4)
        for (x, y) in [(0, 0), (299, 0), (0, 299), (299, 299), (20, 20)] {
            #expect(try circle.pixel(x: x, y: y)[3] == 0, "(\(x), \(y)) should be transparent")
        }
        for (x, y) in [(150, 150), (150, 2), (2, 150), (297, 150), (150, 297)] {
            #expect(try circle.pixel(x: x, y: y)[3] == 255, "(\(x), \(y)) should be opaque")
        }
        // The colour inside the circle is the source's, from the centre square.
        #expect(try Array(circle.pixel(x: 150, y: 150).prefix(3)) == landscape.pixel(x: 200, y: 150))
    }

    @Test func roundedCornersMakeOnlyTheCornersTransparent() throws {
        let rounded = try ImageCodec.process(landscape, with: .roundedCorners(radius: 40))
        #expect(size(rounded) == [400, 300])
        #expect(rounded.hasAlpha)
        for (x, y) in [(0, 0), (399, 0), (0, 299), (399, 299), (5, 5)] {
            #expect(try rounded.pixel(x: x, y: y)[3] == 0, "(\(x), \(y)) should be transparent")
        }
        for (x, y) in [(200, 0), (0, 150), (399, 150), (200, 299), (40, 40), (200, 150)] {
            #expect(try rounded.pixel(x: x, y: y)[3] == 255, "(\(x), \(y)) should be opaque")
        }
        #expect(try ImageCodec.process(landscape, with: .roundedCorners(radius: 0)) === landscape)
    }

    @Test func shapesKeepTheSourceTransparency() throws {
        let rgba = try ImageCodec.decode(files.make(width: 80, height: 80, format: "png", alpha: true))
        let circle = try ImageCodec.process(rgba, with: .circle)
        #expect(circle.bandCount == 4)
        #expect(try circle.pixel(x: 0, y: 0)[3] == 0)
        #expect(try circle.pixel(x: 40, y: 40)[3] == 255)
        // A transparent corner stays transparent through a second shape.
        let again = try ImageCodec.process(circle, with: .roundedCorners(radius: 4))
        #expect(again.bandCount == 4)
        #expect(try again.pixel(x: 10, y: 10)[3] == 0)
    }

    @Test func aSharedDecodedImageCanBeProcessedByTwoThreadsAtOnce() throws {
        let image = landscape
        let outcomes = Outcomes()
        let done = DispatchSemaphore(value: 0)
        let processors: [ImageProcessor] = [
            .resize(.init(width: 100, height: 100, contentMode: .aspectFill, crop: true)), .gaussianBlur(radius: 2),
        ]
        for processor in processors {
            let thread = Thread {
                for _ in 0..<4 {
                    do {
                        let result = try ImageCodec.process(image, with: processor)
                        let png = try ImageCodec.encode(result, as: OutputEncoding(format: .png))
                        outcomes.record("\(processor.identifier) \(result.width)x\(result.height) \(try ImageHeader(data: png).width)")
                    } catch {
                        outcomes.record("\(processor.identifier) failed: \(error)")
                    }
                }
                done.signal()
            }
            thread.start()
        }
        for _ in processors { done.wait() }

        let expected = Array(repeating: "resize(w=100,h=100,fill,crop=1,up=0) 100x100 100", count: 4)
            + Array(repeating: "blur(2.0) 400x300 400", count: 4)
        #expect(outcomes.all.sorted() == expected.sorted())
        // The shared image is intact.
        #expect(try ImageCodec.process(image, with: .circle).width == 300)
    }
}

/// Lines recorded by several threads.
private final class Outcomes: Sendable {
    private let lines = Mutex<[String]>([])
    func record(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
