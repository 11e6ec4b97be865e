import Foundation
import PipelineEngine
import Testing
@testable import Warmer

/// The processing spec's text form (docs/wire-format.md), which producers in
/// any language write and workers parse.
@Suite struct ProcessingSpecTests {
    @Test func parsesStepsInOrderAndPrintsThemCanonically() throws {
        let spec = try ProcessingSpec(parsing: "resize=400x400,fill,crop&blur=2&rounded=16&format=png")
        #expect(spec.thumbnail == nil)
        #expect(spec.processors == [
            .resize(.init(width: 400, height: 400, contentMode: .aspectFill, crop: true)),
            .gaussianBlur(radius: 2), .roundedCorners(radius: 16),
        ])
        #expect(spec.encoding == ImageEncoding(format: .png))
        #expect(spec.description == "resize=400x400,fill,crop&blur=2&rounded=16&format=png")
        #expect(try ProcessingSpec(parsing: spec.description) == spec)
    }

    @Test func thumbnailAndQualityGoToTheRequest() throws {
        var request = ImageRequest(url: URL(string: "https://cdn.example/a.jpg")!)
        try ProcessingSpec(parsing: "thumbnail=320&format=webp&quality=80").apply(to: &request)
        #expect(request.thumbnail == ThumbnailOptions(maxPixelSize: 320))
        #expect(request.encoding == ImageEncoding(format: .webp, quality: 80))
        #expect(request.processedDataCacheKey == "https://cdn.example/a.jpg|thumb(320)|webp(q=80)")
    }

    @Test func theEmptySpecChangesNothing() throws {
        #expect(try ProcessingSpec(parsing: "").isEmpty)
    }

    @Test(arguments: [
        "bogus=1", "resize=big", "resize=0x0", "resize=10x10,sideways", "blur=-1", "thumbnail=0",
        "thumbnail=10&thumbnail=20", "format=tiff", "quality=101&format=jpeg", "quality=80", "circle=3",
    ])
    func refusesMalformedSpecs(_ text: String) {
        #expect(throws: ProcessingSpecError.self) { try ProcessingSpec(parsing: text) }
    }
}
