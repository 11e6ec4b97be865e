import Foundation
import PipelineEngine
import Testing
@testable import Warmer
import WarmerInput

/// How a job's processing spec becomes the pipeline request the worker runs.
@Suite struct ProcessingSpecRequestTests {
    @Test func thumbnailAndQualityGoToTheRequest() throws {
        var request = ImageRequest(url: URL(string: "https://cdn.example/a.jpg")!)
        try ProcessingSpec(parsing: "thumbnail=320&format=webp&quality=80").apply(to: &request)
        #expect(request.thumbnail == ThumbnailOptions(maxPixelSize: 320))
        #expect(request.encoding == OutputEncoding(format: .webp, quality: 80))
        #expect(request.processedDataCacheKey == "https://cdn.example/a.jpg|thumb(320)|webp(q=80)")
    }
}

/// The processing flags of `enqueue`, `warm` and `cache`.
@Suite struct ProcessingOptionsTests {
    @Test func aTinyBlurFlagBuildsAValidSpec() throws {
        // `--blur 0.00001` used to become 'blur=1e-05', which the spec parser refuses.
        let options = try ProcessingOptions.parse(["--blur", "0.00001", "--format", "png"])
        #expect(try options.spec().description == "blur=0.00001&format=png")
    }
}
