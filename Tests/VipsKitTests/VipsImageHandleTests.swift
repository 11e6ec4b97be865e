import Foundation
import Testing
@testable import VipsKit

/// VipsKit's Swift face of libvips: typed formats and interpretations,
/// operations that make new images, encoded bytes read back, and pixels
/// shared through views.
@Suite("VipsKit images")
struct VipsImageHandleTests {
    @Test func drawingOnABlackCanvasShowsThroughAViewOfItsPixels() throws {
        // Given a canvas with a filled disc, its pixels taken over
        let canvas = try vips().black(width: 8, height: 6)
        try canvas.fillCircle(value: 255, centreX: 4, centreY: 3, radius: 2)
        let pixels = try VipsPixels(materialised: canvas.materialised())
        // When an operation gets a view of its own
        let view = try pixels.view(retaining: pixels)
        // Then it reads the same pixels
        #expect(pixels.width == 8 && pixels.height == 6 && pixels.bands == 1 && pixels.byteCount == 48)
        #expect(view.width == 8 && view.height == 6 && view.bands == 1)
        #expect(try view.pixel(x: 4, y: 3) == [255])
        #expect(try view.pixel(x: 0, y: 0) == [0])
    }

    @Test func bandFormatsAndInterpretationsAreLibvipsOwn() throws {
        let grey = try vips().black(width: 2, height: 2)
        #expect(grey.format == .uchar && grey.bytesPerBand == 1)
        let wide = try grey.cast(to: .ushort)
        #expect(wide.format == .ushort && wide.bytesPerBand == 2)
        let rgb = try grey.joiningBands(of: grey).joiningBands(of: grey).relabelled(as: .sRGB)
        #expect(rgb.interpretation == .sRGB && rgb.bands == 3 && !rgb.hasAlpha)
        #expect(try rgb.relabelled(as: .multiband).interpretation == .multiband)
    }

    @Test func anEncodedImageIsReadBackWithItsLoaderAndSize() throws {
        // Given a 30×20 image encoded as PNG
        let vips = try vips()
        let image = try vips.black(width: 30, height: 20).resized(horizontalScale: 1, verticalScale: 1)
        let png = try image.encoded(as: .png, quality: 0)
        // When its bytes are read
        let (loader, width, height) = try vips.reading(png) { source throws(VipsFailure) in
            let opened = try source.openSequential()
            return (try source.loader(), opened.width, opened.height)
        }
        // Then
        #expect(loader == "pngload_buffer" && width == 30 && height == 20)
    }

    @Test func noiseOfOneSeedIsTheSameAndOfAnotherIsNot() throws {
        let vips = try vips()
        func noise(seed: Int) throws -> [Double] {
            let image = try vips.gaussianNoise(width: 16, height: 16, sigma: 60, mean: 128, seed: seed)
            #expect(image.width == 16 && image.height == 16 && image.bands == 1 && image.format == .float)
            return try (0..<4).flatMap { try image.pixel(x: $0 * 5, y: $0 * 3) }
        }
        let first = try noise(seed: 1)
        #expect(try noise(seed: 1) == first)
        #expect(try noise(seed: 2) != first)
        #expect(Set(first).count > 1, "noise, not a flat colour")
    }

    @Test func aFileIsWrittenByItsExtensionsSaverWithTheOptionsAfterIt() throws {
        // Given a 40×30 image
        let vips = try vips()
        let image = try vips.gaussianNoise(width: 40, height: 30, sigma: 60, mean: 128, seed: 3).cast(to: .uchar)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vipskit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // When it is written as a low- and a high-quality JPEG, and as a TIFF
        let low = folder.appendingPathComponent("low.jpg"), high = folder.appendingPathComponent("high.jpg")
        let tiff = folder.appendingPathComponent("page.tif")
        try image.write(toFile: low.path + "[Q=20]")
        try image.write(toFile: high.path + "[Q=95]")
        try image.write(toFile: tiff.path)
        // Then each file has the saver's format, and the options were applied
        let loaders = try [low, high, tiff].map { file in
            try vips.reading(Data(contentsOf: file)) { source throws(VipsFailure) in
                let opened = try source.openSequential()
                return "\(try source.loader()) \(opened.width)x\(opened.height)"
            }
        }
        #expect(loaders == ["jpegload_buffer 40x30", "jpegload_buffer 40x30", "tiffload_buffer 40x30"])
        #expect(try Data(contentsOf: low).count < Data(contentsOf: high).count)
        #expect(throws: VipsFailure.self) { try image.write(toFile: folder.appendingPathComponent("x.unknown").path) }
    }

    @Test func bytesNoLoaderKnowsFailWithLibvipsMessage() throws {
        let failure = #expect(throws: VipsFailure.self) {
            try vips().reading(Data("not an image".utf8)) { source throws(VipsFailure) in try source.loader() }
        }
        #expect(failure?.message.isEmpty == false)
    }

    private func vips() throws -> Vips {
        try Vips.shared.get()
    }
}
