import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("Image decoding")
struct ImageDecodingTests {
    let files: ImageFiles
    init() throws { files = try ImageFiles() }

    @Test(arguments: ["jpg", "png", "webp", "gif", "avif"])
    func decodesDimensionsOfEveryAllowedFormat(_ format: String) throws {
        let image = try ImageCodec.decode(files.make(width: 123, height: 45, format: format))
        #expect(image.width == 123)
        #expect(image.height == 45)
        #expect(image.bandCount >= 3)
        #expect(image.cost == 123 * 45 * image.bandCount)
    }

    @Test func thumbnailShrinksTheLongestSideOnLoad() throws {
        let landscape = try files.make(width: 1200, height: 900)
        let thumbnail = try ImageCodec.decode(landscape, thumbnail: ThumbnailOptions(maxPixelSize: 320))
        #expect([thumbnail.width, thumbnail.height] as [Int] == [320, 240])

        let portrait = try files.make(width: 900, height: 1200, format: "webp")
        let portraitThumbnail = try ImageCodec.decode(portrait, thumbnail: ThumbnailOptions(maxPixelSize: 320))
        #expect([portraitThumbnail.width, portraitThumbnail.height] as [Int] == [240, 320])
    }

    @Test func thumbnailNeverUpscales() throws {
        let small = try files.make(width: 200, height: 100, format: "png")
        let thumbnail = try ImageCodec.decode(small, thumbnail: ThumbnailOptions(maxPixelSize: 320))
        #expect([thumbnail.width, thumbnail.height] as [Int] == [200, 100])
    }

    @Test func decodeRotatesUprightByExifOrientation() throws {
        let jpeg = try files.make(width: 400, height: 300)
        let rotated = try #require(ImageFiles.settingJPEGOrientation(jpeg, to: 6))  // 90° clockwise
        #expect(try ImageHeader(data: rotated).width == 400)  // stored sideways

        let image = try ImageCodec.decode(rotated)
        #expect([image.width, image.height] as [Int] == [300, 400])
        let thumbnail = try ImageCodec.decode(rotated, thumbnail: ThumbnailOptions(maxPixelSize: 200))
        #expect([thumbnail.width, thumbnail.height] as [Int] == [150, 200])
    }

    @Test func cmykJPEGAndSixteenBitPNGDecodeToEightBitSRGB() throws {
        let cmyk = try ImageCodec.decode(files.make(width: 64, height: 48, colourspace: "cmyk"))
        #expect(cmyk.bandCount == 3)
        #expect(cmyk.cost == 64 * 48 * 3)

        let sixteenBit = try files.make(width: 64, height: 48, format: "png", alpha: true, colourspace: "rgb16")
        let image = try ImageCodec.decode(sixteenBit)
        #expect(image.bandCount == 4)
        #expect(image.hasAlpha)
        #expect(image.cost == 64 * 48 * 4)  // one byte per band
        #expect(try image.pixel(x: 5, y: 5)[3] == 255)
    }

    @Test func decodedImageNoLongerNeedsTheSourceData() throws {
        var data = try files.make(width: 300, height: 200)
        let image = try ImageCodec.decode(data)
        let thumbnail = try ImageCodec.decode(data, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        // Overwrite the very bytes libvips borrowed (the buffer is not shared, so in place).
        data.resetBytes(in: 0..<data.count)

        let png = try ImageCodec.encode(ImageCodec.process(image, with: .gaussianBlur(radius: 2)), as: OutputEncoding(format: .png))
        #expect(try ImageHeader(data: png).width == 300)
        #expect(try ImageHeader(data: ImageCodec.encode(thumbnail, as: OutputEncoding(format: .png))).width == 100)
    }

    @Test func refusesAHugePNGHeaderAsTooManyPixelsWithoutDecoding() throws {
        let bomb = ImageFiles.pngHeader(width: 30000, height: 30000)
        #expect(try ImageHeader(data: bomb).width == 30000)  // a valid header
        // Its pixel data is garbage: decoding would fail with decodingFailed instead.
        #expect(throws: ImageProcessingError.tooManyPixels(width: 30000, height: 30000, limit: 100_000_000)) {
            try ImageCodec.decode(bomb)
        }
        #expect(throws: ImageProcessingError.tooManyPixels(width: 30000, height: 30000, limit: 100_000_000)) {
            try ImageCodec.decode(bomb, thumbnail: ThumbnailOptions(maxPixelSize: 64))
        }
    }

    @Test func refusesAnImageOverACustomPixelLimit() throws {
        let jpeg = try files.make(width: 100, height: 100)
        #expect(throws: ImageProcessingError.tooManyPixels(width: 100, height: 100, limit: 9_999)) {
            try ImageCodec.decode(jpeg, limits: ImageLimits(maxPixelCount: 9_999))
        }
        #expect(try ImageCodec.decode(jpeg, limits: ImageLimits(maxPixelCount: 10_000)).width == 100)
    }

    @Test(arguments: ["jpg", "png"])
    func truncatedDataFailsWithDecodingFailed(_ format: String) throws {
        let whole = try files.make(width: 400, height: 300, format: format)
        let truncated = whole.prefix(whole.count / 2)
        #expect(try ImageHeader(data: truncated).width == 400)  // the header survives
        for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 100)] {
            let error = #expect(throws: ImageProcessingError.self) { try ImageCodec.decode(truncated, thumbnail: thumbnail) }
            #expect(error?.code == "decoding_failed", "\(String(describing: error))")
        }
    }

    /// Issue 10, finding 5: a 10000×10000 header over an 800×534 photo's data
    /// once decoded "successfully", its missing rows padded grey (libjpeg
    /// calls a segment cut short a warning, not an error).
    @Test(arguments: [nil, ThumbnailOptions(maxPixelSize: 320)])
    func aJPEGWhoseHeaderClaimsMoreThanItsDataHoldsFails(_ thumbnail: ThumbnailOptions?) throws {
        let photo = try files.make(width: 800, height: 534)
        let hostile = try #require(ImageFiles.settingJPEGFrameSize(photo, width: 4000, height: 4000))
        #expect(try ImageHeader(data: hostile).width == 4000)
        let error = #expect(throws: ImageProcessingError.self) { try ImageCodec.decode(hostile, thumbnail: thumbnail) }
        // (Not the message: libvips' error buffer is one per process, and a
        // failure on another thread at the same moment may take its text.)
        #expect(error?.code == "decoding_failed", "\(String(describing: error))")
    }

    @Test func refusesSVGPDFTIFFAndTextAsUnsupportedFormats() throws {
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        #expect(throws: ImageProcessingError.unsupportedFormat(loader: "svgload_buffer")) { try ImageCodec.decode(svg) }

        let pdf = Data("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)
        #expect(throws: ImageProcessingError.unsupportedFormat(loader: "pdfload_buffer")) { try ImageCodec.decode(pdf) }

        let tiff = try files.make(width: 20, height: 20, format: "tif")
        #expect(throws: ImageProcessingError.unsupportedFormat(loader: "tiffload_buffer")) { try ImageCodec.decode(tiff) }

        for text in [Data("hello, this is not an image\n".utf8), Data()] {
            #expect(throws: ImageProcessingError.unsupportedFormat(loader: ImageProcessingError.unrecognisedLoader)) {
                try ImageCodec.decode(text)
            }
        }
    }

    @Test func allowedLoadersCanNarrowButNeverWidenThePolicy() throws {
        let limits = ImageLimits(allowedLoaders: ["pngload_buffer", "svgload_buffer"])
        #expect(limits.allowedLoaders == ["pngload_buffer"])
        let jpeg = try files.make(width: 10, height: 10)
        #expect(throws: ImageProcessingError.unsupportedFormat(loader: "jpegload_buffer")) {
            try ImageCodec.decode(jpeg, limits: limits)
        }
        #expect(try ImageCodec.decode(files.make(width: 10, height: 10, format: "png"), limits: limits).width == 10)
    }
}
