import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// The task graph end to end: the behaviours of TaskGraphTests (which runs
/// over in-memory fakes) that depend on the real parts — one request at the
/// nginx origin for coalesced work, a real libcurl transfer aborted by a
/// cancel, real libvips thumbnails and processing. Slow (100 KB/s) URLs keep
/// downloads in flight while several requests join them; the pipeline's
/// `counters` count the work done by stage.
@Suite("Task graph end to end")
struct TaskGraphEndToEndTests {
    let cache: DataCache
    let pipeline: ImagePipeline

    init() throws {
        cache = try DataCache.temporary("graph")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .storeOriginalData)
        pipeline = ImagePipeline(configuration: configuration)
    }


    /// A ~150 KB JPEG served at 100 KB/s: the download lasts about a second.
    func slowImage(_ label: String) throws -> (file: URL, url: URL) {
        let file = try Origin.makeImage(TestEnvironment.uniqueName(label), width: 400, height: 400)
        return (file, try Origin.url(of: file, slow: true))
    }

    @Test func identicalImageRequestsShareOneDownloadAndOneDecode() async throws {
        let (file, url) = try slowImage("same-image")
        // When
        let tasks = (0..<3).map { _ in pipeline.loadImage(for: ImageRequest(url: url)) }
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
        #expect(pipeline.counters.decodes == 1)
        #expect(responses.allSatisfy { $0.image?.width == 400 && $0.source == .network })
    }

    @Test func aRawPrefetchAndADecodeOfOneURLShareOneDownload() async throws {
        // Given one slow image
        let (file, url) = try slowImage("raw-and-decoded")
        // When its raw data is prefetched and a thumbnail of it is loaded at once
        let raw = pipeline.prefetchData(for: ImageRequest(url: url))
        let thumbnail = pipeline.loadImage(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 64)))
        let rawResponse = try await raw.response
        let thumbnailResponse = try await thumbnail.response
        // Then both came from one download
        #expect(rawResponse.source == .network && thumbnailResponse.source == .network)
        #expect(thumbnailResponse.image?.width == 64)
        #expect(pipeline.counters.downloads == 1)
        #expect(try Origin.requestCount(path: file.lastPathComponent, slow: true) == 1)
    }

    @Test func processorChainsShareTheirCommonPrefix() async throws {
        // Given: [1] and [1, 2] at once.
        let (_, url) = try slowImage("prefix")
        let tasks = [
            pipeline.loadImage(for: ImageRequest(url: url, processors: [FakeGraph.resize1])),
            pipeline.loadImage(for: ImageRequest(url: url, processors: [FakeGraph.resize1, FakeGraph.blur2])),
        ]
        let responses = try await tasks.asyncMap { try await $0.response }
        // Then: the resize ran once, the blur once.
        #expect(pipeline.counters.processings(of: FakeGraph.resize1.identifier) == 1)
        #expect(pipeline.counters.processings(of: FakeGraph.blur2.identifier) == 1)
        #expect(pipeline.counters.downloads == 1)
        #expect(responses.map { $0.image?.width } == [200, 200])
    }

    @Test func cancellingEveryImageTaskCancelsTheDownload() async throws {
        // A ~350 KB file: about 2.5 s at 100 KB/s, so the cancel lands mid-download.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("image-cancel-all"), width: 700, height: 700)
        let url = try Origin.url(of: file, slow: true)
        let size = try Data(contentsOf: file).count
        let tasks = [[FakeGraph.resize1], [FakeGraph.blur2]].map { pipeline.loadImage(for: ImageRequest(url: url, processors: $0)) }
        // Bytes are flowing (so the origin has the request and will log it).
        #expect(await tasks[0].firstProgress() != nil)
        // When
        tasks.forEach { $0.cancel() }
        // Then: the download is aborted (the origin sent less than the file)
        // and no task is left in the graph.
        let logged = await eventuallyValue { try? Origin.loggedRequests(path: file.lastPathComponent, slow: true).first }
        #expect(try #require(logged).bytes < size)
        #expect(await eventually { pipeline.activeDataFetchCount == 0 })
        #expect(pipeline.counters.decodes == 0)
    }

}
