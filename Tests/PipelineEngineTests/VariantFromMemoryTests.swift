import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// A processed prefetch whose pixels the memory cache serves still leaves
/// its encoded variant on disk, with the file's size as its byte count
/// (issue 23: such a job ended `completed` from `memory` with the pixel
/// buffer's size, and stored nothing). Real libvips, the nginx origin and
/// the fault origin; no timing.
@Suite("Variants from memory")
struct VariantFromMemoryTests {
    /// The five variants of `url` a worker was asked for in a row (issue
    /// 23), the first of which puts the plain decoded image in memory, each
    /// with the loader its stored file must open with.
    static func sequence(of url: URL) -> [(label: String, request: ImageRequest, loader: String)] {
        [
            ("webp", ImageRequest(url: url, encoding: .init(format: .webp)), "webpload_buffer"),
            ("png q=50", ImageRequest(url: url, encoding: .init(format: .png, quality: 50)), "pngload_buffer"),
            ("webp q=80", ImageRequest(url: url, encoding: .init(format: .webp, quality: 80)), "webpload_buffer"),
            ("thumbnail 300 webp", ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300), encoding: .init(format: .webp)),
             "webpload_buffer"),
            ("re-encode", ImageRequest(url: url, options: [.reencodeImage]), "pngload_buffer"),
        ]
    }

    @Test(arguments: [DataCachePolicy.automatic, .storeAll])
    func everyVariantOfARowIsStoredWhateverServedItsPixels(policy: DataCachePolicy) async throws {
        // Given a pipeline with a memory cache and a PNG on the origin
        let cache = try DataCache.temporary("memory-variants")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache(), policy: policy))
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("memory-variants"), width: 400, height: 267,
                                                      format: .png))
        var sources: [ImageResponse.Source] = []
        for step in Self.sequence(of: url) {
            // When each variant is prefetched in turn
            let request = step.request
            let response = try await pipeline.prefetchImage(for: request).response
            sources.append(response.source)
            // Then its file is on disk, in its format, and the response counts its bytes
            let file = try #require(response.cacheURL, "\(step.label): no file")
            let stored = try Data(contentsOf: file)
            #expect(file == cache.url(for: request.processedDataCacheKey), "\(step.label)")
            #expect(response.byteCount == stored.count, "\(step.label)")
            #expect(try ImageHeader(data: stored).loader == step.loader, "\(step.label)")
        }
        // ... and every variant but the thumbnail (a memory entry of its own)
        // was made from the plain image in memory
        let thumbnailSource: ImageResponse.Source = policy == .storeAll ? .disk : .network
        #expect(sources == [.network, .memory, .memory, thumbnailSource, .memory])
        #expect(try Origin.requestCount(path: url.lastPathComponent) == (policy == .storeAll ? 1 : 2))
    }

    @Test func aVariantAlreadyOnDiskIsNotEncodedAgainFromMemory() async throws {
        // Given a variant on disk, and its plain image in memory
        let cache = try DataCache.temporary("memory-ondisk")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .automatic))
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("memory-ondisk")))
        let webp = ImageRequest(url: url, encoding: .init(format: .webp))
        _ = try await pipeline.prefetchImage(for: webp).response
        let encodes = pipeline.counters.encodes
        // When it is prefetched again
        let again = try await pipeline.prefetchImage(for: webp).response
        // Then the file on disk answers
        #expect(again.source == .disk)
        #expect(pipeline.counters.encodes == encodes)
        #expect(try again.byteCount == Data(contentsOf: #require(again.cacheURL)).count)
    }

    @Test func identicalPrefetchesFromMemoryShareOneEncodeAndBothReportTheFile() async throws {
        // Given the plain image in memory
        let cache = try DataCache.temporary("memory-coalesced")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .automatic))
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("memory-coalesced")))
        _ = try await pipeline.loadImage(for: ImageRequest(url: url)).response
        let encodes = pipeline.counters.encodes
        // When two identical variant prefetches start together
        let request = ImageRequest(url: url, encoding: .init(format: .png))
        let tasks = [pipeline.prefetchImage(for: request), pipeline.prefetchImage(for: request)]
        var responses: [ImageResponse] = []
        for task in tasks { responses.append(try await task.response) }
        // Then both report the one file, encoded once
        let stored = try #require(cache.cachedData(for: request.processedDataCacheKey))
        for response in responses {
            #expect(response.cacheURL == cache.url(for: request.processedDataCacheKey))
            #expect(response.byteCount == stored.count)
        }
        #expect(pipeline.counters.encodes == encodes + 1)
    }

    @Test func thePrefetcherDoesNotSkipAnImageInMemoryWhoseVariantIsMissing() async throws {
        // Given the plain image in memory, and a prefetcher of processed images
        let cache = try DataCache.temporary("memory-prefetcher")
        let pipeline = ImagePipeline(configuration: .testOrigin(dataCache: cache, imageCache: ImageCache(), policy: .automatic))
        let url = try Origin.url(of: Origin.makeImage(TestEnvironment.uniqueName("memory-prefetcher")))
        _ = try await pipeline.loadImage(for: ImageRequest(url: url)).response
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .memoryCache)
        let request = ImageRequest(url: url, encoding: .init(format: .webp))
        // When it is asked for the WebP variant, whose pixels are in memory
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            prefetcher.didComplete = { done.resume() }
            prefetcher.startPrefetching(with: [request])
        }
        // Then the variant is on disk
        #expect(try ImageHeader(data: #require(cache.cachedData(for: request.processedDataCacheKey))).loader == "webpload_buffer")
    }
}

/// The same in HTTP cache mode, where a variant stores its source's
/// metadata (its validator): an image from memory takes the source's
/// metadata from disk.
@Suite("Variants from memory, HTTP cache mode")
struct VariantFromMemoryHTTPModeTests {
    /// A pipeline in HTTP mode (`automatic`, with a memory cache) on a cache
    /// of its own, and a fresh source on the fault origin, fresh for an hour
    /// with an ETag: its file name and URL.
    static func setUp(_ label: String) throws -> (DataCache, ImagePipeline, name: String, url: URL) {
        let cache = try DataCache.temporary(label)
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: cache, mode: .http)
        configuration.dataCachePolicy = .automatic
        configuration.imageCache = ImageCache()
        let name = try Origin.makeImage(TestEnvironment.uniqueName(label)).lastPathComponent
        let url = try FaultOrigin.url(file: name, ["cc": "max-age=3600", "etag": "auto"])
        return (cache, ImagePipeline(configuration: configuration), name, url)
    }

    @Test func aVariantMadeFromMemoryStoresItsSourcesValidator() async throws {
        // Given a pipeline in HTTP mode with a memory cache, and a source with an ETag
        let (cache, pipeline, name, url) = try Self.setUp("memory-http")
        let webp = ImageRequest(url: url, encoding: .init(format: .webp))
        _ = try await pipeline.prefetchImage(for: webp).response
        // When a second variant is made from the image in memory
        let png = ImageRequest(url: url, encoding: .init(format: .png))
        let response = try await pipeline.prefetchImage(for: png).response
        // Then it is on disk with the source's validator, and the origin saw one request
        #expect(response.source == .memory)
        #expect(try response.byteCount == Data(contentsOf: #require(response.cacheURL)).count)
        let source = try #require(cache.metadata(for: png.dataCacheKey).flatMap(HTTPCacheMetadata.decode))
        let variant = try #require(cache.metadata(for: png.processedDataCacheKey).flatMap(HTTPCacheMetadata.decode))
        #expect(variant.variantValidator != nil && variant.variantValidator == source.variantValidator)
        #expect(try await FaultLog.requests(file: name, atLeast: 1).count == 1)
    }

    @Test func withoutItsSourcesMetadataAnImageInMemoryIsNotTrustedForAVariant() async throws {
        // Given a variant's plain image in memory, and its source's metadata gone from disk
        let (cache, pipeline, name, url) = try Self.setUp("memory-http-evicted")
        _ = try await pipeline.prefetchImage(for: ImageRequest(url: url, encoding: .init(format: .webp))).response
        cache.removeData(for: ImageRequest(url: url).dataCacheKey)
        cache.flush()
        // When another variant is prefetched
        let png = ImageRequest(url: url, encoding: .init(format: .png))
        let response = try await pipeline.prefetchImage(for: png).response
        // Then the source was fetched again, and the variant stored with its validator
        #expect(response.source == .network)
        #expect(cache.metadata(for: png.processedDataCacheKey).flatMap(HTTPCacheMetadata.decode)?.variantValidator != nil)
        #expect(try await FaultLog.requests(file: name, atLeast: 2).count == 2)
    }
}
