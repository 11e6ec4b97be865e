import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// Which disk cache keys `loadImage` writes, and how many encodes it does,
/// under each `DataCachePolicy` — the table in docs/pipeline.md.
@Suite("DataCachePolicy")
struct DataCachePolicyTests {
    /// What a case asks for: a request with a processor, a plain one, or both at once.
    enum Requests: String, CaseIterable, Sendable { case processed, plain, both }

    struct Expectation: Sendable, CustomTestStringConvertible {
        let policy: DataCachePolicy
        let requests: Requests
        let writesOriginalKey: Bool
        let writesProcessedKey: Bool
        let encodes: Int
        var testDescription: String { "\(policy) \(requests)" }
    }

    static let matrix: [Expectation] = [
        .init(policy: .automatic, requests: .processed, writesOriginalKey: false, writesProcessedKey: true, encodes: 1),
        .init(policy: .automatic, requests: .plain, writesOriginalKey: true, writesProcessedKey: false, encodes: 0),
        .init(policy: .automatic, requests: .both, writesOriginalKey: true, writesProcessedKey: true, encodes: 1),
        .init(policy: .storeOriginalData, requests: .processed, writesOriginalKey: true, writesProcessedKey: false, encodes: 0),
        .init(policy: .storeOriginalData, requests: .plain, writesOriginalKey: true, writesProcessedKey: false, encodes: 0),
        .init(policy: .storeOriginalData, requests: .both, writesOriginalKey: true, writesProcessedKey: false, encodes: 0),
        // The plain request stores its re-encoded image under the plain key.
        .init(policy: .storeEncodedImages, requests: .processed, writesOriginalKey: false, writesProcessedKey: true, encodes: 1),
        .init(policy: .storeEncodedImages, requests: .plain, writesOriginalKey: true, writesProcessedKey: false, encodes: 1),
        .init(policy: .storeEncodedImages, requests: .both, writesOriginalKey: true, writesProcessedKey: true, encodes: 2),
        .init(policy: .storeAll, requests: .processed, writesOriginalKey: true, writesProcessedKey: true, encodes: 1),
        .init(policy: .storeAll, requests: .plain, writesOriginalKey: true, writesProcessedKey: false, encodes: 0),
        .init(policy: .storeAll, requests: .both, writesOriginalKey: true, writesProcessedKey: true, encodes: 1),
    ]

    @Test(arguments: matrix)
    func writesWhatThePolicySays(_ expected: Expectation) async throws {
        // Given
        let cache = try DataCache.temporary("policy")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, policy: expected.policy)
        let pipeline = ImagePipeline(configuration: configuration)
        let file = try Origin.makeImage(TestEnvironment.uniqueName("policy"), width: 300, height: 200)
        let url = try Origin.url(of: file, slow: true)
        let processed = ImageRequest(url: url, processors: [.resize(.init(width: 100, height: nil))])
        let plain = ImageRequest(url: url)
        let requests: [ImageRequest] = switch expected.requests {
        case .processed: [processed]
        case .plain: [plain]
        // (The plain request first: it starts the download, so its policy applies to the data
        // whenever the processed one joins. The other way round, a plain request that joins
        // only after the download ended writes no original: docs/pipeline.md, `DataCachePolicy`.)
        case .both: [plain, processed]
        }
        // When: the requests run at once.
        let tasks = requests.map { pipeline.loadImage(for: $0) }
        for task in tasks { _ = try await task.response }
        cache.flush()
        // Then
        #expect(cache.containsData(for: plain.dataCacheKey) == expected.writesOriginalKey)
        #expect(cache.containsData(for: processed.processedDataCacheKey) == expected.writesProcessedKey)
        #expect(pipeline.counters.encodes == expected.encodes)
        #expect(pipeline.counters.downloads == 1)
        if expected.writesProcessedKey {
            let stored = try #require(cache.cachedData(for: processed.processedDataCacheKey))
            #expect(try ImageHeader(data: stored).width == 100)
        }
    }

    @Test func dataOnlyLoadsNeverEncodeAndStoreNothingUnderStoreEncodedImages() async throws {
        let cache = try DataCache.temporary("policy-data")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, policy: .storeEncodedImages)
        let pipeline = ImagePipeline(configuration: configuration)
        let file = try Origin.makeImage(TestEnvironment.uniqueName("policy-data"))
        let request = ImageRequest(url: try Origin.url(of: file))
        _ = try await pipeline.prefetchData(for: request).response
        cache.flush()
        #expect(!cache.containsData(for: request.dataCacheKey))
        #expect(pipeline.counters.encodes == 0 && pipeline.counters.decodes == 0)
    }

    @Test func anEncodedCopyOnDiskIsServedWithoutDownloading() async throws {
        let cache = try DataCache.temporary("policy-disk")
        var configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .automatic)
        let file = try Origin.makeImage(TestEnvironment.uniqueName("policy-disk"))
        let request = ImageRequest(url: try Origin.url(of: file), thumbnail: .init(maxPixelSize: 64), encoding: .init(format: .png))
        _ = try await ImagePipeline(configuration: configuration).loadImage(for: request).response
        cache.flush()
        // When: a new pipeline (empty memory) loads and prefetches it again.
        configuration.imageCache = ImageCache()
        let pipeline = ImagePipeline(configuration: configuration)
        let loaded = try await pipeline.loadImage(for: request).response
        let prefetched = try await pipeline.prefetchImage(for: request).response
        // Then
        #expect(loaded.source == .disk && loaded.image?.width == 64)
        // (the prefetch is for the file: it answers from the file on disk,
        // not from the image the load left in memory)
        #expect(prefetched.source == .disk && prefetched.byteCount == cache.sizeOfData(for: request.processedDataCacheKey))
        #expect(pipeline.counters.downloads == 0)
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 1)
    }
}

extension DataCachePolicyTests {
    @Test func aChainServedFromMemoryStillStoresItsEncodedResult() async throws {
        // Given: [resize] is in memory, under a policy that stores encoded images.
        let cache = try DataCache.temporary("policy-memory")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .automatic)
        let pipeline = ImagePipeline(configuration: configuration)
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("policy-memory")))
        let resize = ImageProcessor.resize(.init(width: 100))
        _ = try await pipeline.loadImage(for: ImageRequest(url: url, processors: [resize])).response
        // When: [resize, circle] is asked for.
        let request = ImageRequest(url: url, processors: [resize, .circle], encoding: .init(format: .png))
        let response = try await pipeline.loadImage(for: request).response
        cache.flush()
        // Then: it came from memory, and its encoded PNG is on disk.
        #expect(response.source == .memory)
        #expect(try ImageHeader(data: #require(cache.cachedData(for: request.processedDataCacheKey))).loader == "pngload_buffer")
    }

    @Test(arguments: [DataCachePolicy.automatic, .storeAll])
    func anEncodingOrReencodeAloneMakesAVariantStoredUnderItsOwnKey(policy: DataCachePolicy) async throws {
        // Given a request with only an output format, and one with only `reencodeImage`
        let cache = try DataCache.temporary("policy-variant")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, policy: policy)
        let pipeline = ImagePipeline(configuration: configuration)
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("variant"), width: 60, height: 40))
        let webp = ImageRequest(url: url, encoding: .init(format: .webp))
        let reencoded = ImageRequest(url: url, options: [.reencodeImage])
        #expect(webp.processedDataCacheKey == url.absoluteString + "|webp(q=default)")
        #expect(reencoded.processedDataCacheKey == url.absoluteString + "|reencoded")

        // When both are loaded
        let responses = [try await pipeline.loadImage(for: webp).response, try await pipeline.loadImage(for: reencoded).response]
        cache.flush()

        // Then each encoded image is on disk, its size the response's byte count,
        // and the original is kept only under storeAll
        for (request, response) in zip([webp, reencoded], responses) {
            let stored = try #require(cache.cachedData(for: request.processedDataCacheKey))
            #expect(response.byteCount == stored.count)
        }
        #expect(try ImageHeader(data: #require(cache.cachedData(for: webp.processedDataCacheKey))).loader == "webpload_buffer")
        #expect(try ImageHeader(data: #require(cache.cachedData(for: reencoded.processedDataCacheKey))).loader == "jpegload_buffer")
        #expect(cache.containsData(for: url.absoluteString) == (policy == .storeAll))
    }

    @Test func dataWhoseWriteIsStillQueuedIsDecodedFromMemory() async throws {
        // Given: data stored through pipeline.cache while the cache's disk
        // writes are held back (a busy disk)
        let cache = try DataCache.temporary("policy-staged")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache()))
        let file = try Origin.makeImage(TestEnvironment.uniqueName("staged"))
        let plain = ImageRequest(url: try Origin.url(of: file))
        let thumb = ImageRequest(url: plain.url, thumbnail: .init(maxPixelSize: 16), options: [.returnCacheDataDontLoad])
        let response = try await cache.withIOSuspended {
            pipeline.cache.storeCachedData(try Data(contentsOf: file), for: plain)
            #expect(!FileManager.default.fileExists(atPath: cache.url(for: plain.url.absoluteString).path))
            // When: a cache-only request decodes it before the file exists
            return try await pipeline.loadImage(for: thumb).response
        }
        // Then: it decoded the staged bytes
        #expect(response.image?.width == 16 && response.source == .disk)
        #expect(pipeline.counters.downloads == 0)
    }

    @Test func pipelineCacheReachesEveryLayerByRequest() async throws {
        let cache = try DataCache.temporary("policy-layers")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache()))
        let file = try Origin.makeImage(TestEnvironment.uniqueName("layers"))
        let plain = ImageRequest(url: try Origin.url(of: file))
        let thumb = ImageRequest(url: plain.url, thumbnail: .init(maxPixelSize: 32), options: [.returnCacheDataDontLoad])
        // Given: data stored through pipeline.cache, never downloaded.
        pipeline.cache.storeCachedData(try Data(contentsOf: file), for: plain)
        #expect(pipeline.cache.containsData(for: plain))
        #expect(pipeline.cache.makeDataCacheKey(for: plain) == plain.url.absoluteString)
        #expect(pipeline.cache.makeDataCacheKey(for: thumb) == plain.url.absoluteString + "|thumb(32)")
        // When: a cache-only request decodes it.
        let response = try await pipeline.loadImage(for: thumb).response
        // Then: it is in memory under its key, and removeAll(for:) clears every layer.
        #expect(response.image?.width == 32 && response.source == .disk)
        #expect(pipeline.cache.containsCachedImage(for: thumb))
        #expect(pipeline.cache.imageCache?.keys == [pipeline.cache.makeImageCacheKey(for: thumb)])
        pipeline.cache.removeAll(for: thumb)
        pipeline.cache.removeCachedData(for: plain)
        #expect(!pipeline.cache.containsCachedImage(for: thumb) && !pipeline.cache.containsData(for: plain))
        #expect(try Origin.requestCount(path: file.lastPathComponent) == 0)
    }
}

extension DataCachePolicyTests {
    @Test func aCompletedTaskMeansTheEncodedFileIsOnDisk() async throws {
        // Given a pipeline that stores encoded images
        let cache = try DataCache.temporary("policy-written")
        let configuration = ImagePipeline.Configuration.testOrigin(dataCache: cache, policy: .automatic)
        let pipeline = ImagePipeline(configuration: configuration)
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("written")))
        // When a processed prefetch completes
        let response = try await pipeline.prefetchImage(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 40))).response
        // Then its file is in place already, without a flush (a process may exit right after)
        let file = try #require(response.cacheURL)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(try ImageHeader(data: Data(contentsOf: file)).width == 40)
    }
}
