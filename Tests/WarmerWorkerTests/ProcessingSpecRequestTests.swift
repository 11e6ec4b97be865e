import Foundation
import PipelineEngine
import Testing
@testable import WarmerWorker
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
