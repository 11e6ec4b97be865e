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
