import Testing
@testable import PipelineEngine

/// Identifiers go into cache keys on disk: these spellings are promises.
@Suite("Image identifiers")
struct ImageIdentifierTests {
    @Test func processorIdentifiersAreStable() {
        #expect(ImageProcessor.resize(.init(width: 320)).identifier == "resize(w=320,h=0,fit,crop=0,up=0)")
        #expect(ImageProcessor.resize(.init(width: 100, height: 80, contentMode: .aspectFill, crop: true, upscale: true)).identifier
            == "resize(w=100,h=80,fill,crop=1,up=1)")
        #expect(ImageProcessor.gaussianBlur(radius: 8).identifier == "blur(8.0)")
        #expect(ImageProcessor.gaussianBlur(radius: 2.5).identifier == "blur(2.5)")
        #expect(ImageProcessor.circle.identifier == "circle")
        #expect(ImageProcessor.roundedCorners(radius: 12).identifier == "rounded(12)")
        #expect(ThumbnailOptions(maxPixelSize: 320).identifier == "thumb(320)")
    }

    @Test func zeroAndNilSidesAreTheSameResize() {
        #expect(ImageProcessor.Resize(width: 320, height: 0) == ImageProcessor.Resize(width: 320))
        #expect(ImageProcessor.Resize(width: 320, height: 0).hashValue == ImageProcessor.Resize(width: 320).hashValue)
        #expect(ImageProcessor.Resize(width: 320) != ImageProcessor.Resize(width: 320, upscale: true))
    }

    @Test func encodingIdentifiersAndExtensions() {
        #expect(OutputEncoding(format: .webp, quality: 80).identifier == "webp(q=80)")
        #expect(OutputEncoding(format: .jpeg).identifier == "jpeg(q=default)")
        #expect(OutputEncoding(format: .avif, quality: 500).identifier == "avif(q=100)")
        #expect(OutputEncoding(format: .png, quality: 80) == OutputEncoding(format: .png))
        #expect(OutputEncoding(format: .png, quality: 80).identifier == "png(q=default)")
        #expect(OutputEncoding(format: .jpeg).fileExtension == "jpg")
        #expect(OutputEncoding(format: .avif).fileExtension == "avif")
    }

    @Test func errorCodesAreSnakeCaseAndStable() {
        let errors: [ImageProcessingError] = [
            .unsupportedFormat(loader: "pdfload_buffer"), .tooManyPixels(width: 2, height: 3, limit: 5), .decodingFailed("x"),
            .processingFailed(processor: "circle", reason: "x"), .encodingFailed("x"), .libvipsUnavailable("x"),
        ]
        #expect(errors.map(\.code) == [
            "unsupported_format", "too_many_pixels", "decoding_failed", "processing_failed", "encoding_failed", "libvips_unavailable",
        ])
        #expect(ImageProcessingError.tooManyPixels(width: 2, height: 3, limit: 5).description.contains("2×3 = 6 pixels"))
        #expect(ImageProcessingError.unsupportedFormat(loader: "pdfload_buffer").description.contains("pdfload_buffer"))
    }
}
