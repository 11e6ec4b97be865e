import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// HTTP cache mode (RFC 9111) against the fault origin, which sends the
/// caching headers each test asks for and answers conditional requests
/// with 304s. Every test has its own image file and its own cache folder.
@Suite("HTTP cache mode")
struct HTTPCacheModeTests {
    let cache: DataCache
    let pipeline: ImagePipeline

    init() throws {
        cache = try DataCache.temporary("http-cache")
        pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache, mode: .http))
    }

    /// A fresh image on the origin; returns its file name.
    func makeSource(_ label: String, width: Int = 320, height: Int = 240) throws -> String {
        try Origin.makeImage(TestEnvironment.uniqueName(label), width: width, height: height).lastPathComponent
    }

    /// The stored metadata of `key`.
    func storedMetadata(_ key: String) throws -> HTTPCacheMetadata {
        try #require(cache.metadata(for: key).flatMap(HTTPCacheMetadata.decode))
    }

    // MARK: Freshness

    @Test func freshEntryIsServedWithoutARequest() async throws {
        // Given: a response fresh for an hour.
        let name = try makeSource("fresh")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=3600", "etag": "auto"]))
        let first = try await pipeline.prefetchData(for: request).response
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then: the second comes from the disk, and the origin saw one request.
        #expect(first.source == .network)
        #expect(second.source == .disk)
        #expect(second.downloadAttempts == 0)
        #expect(try await FaultLog.requests(file: name, atLeast: 1).count == 1)
        #expect(try storedMetadata(request.dataCacheKey).cacheControl == "max-age=3600")
    }

    // MARK: Revalidation

    @Test(arguments: [("no-cache", "auto"), ("max-age=0", "auto"), ("max-age=0", "weak")])
    func staleEntryIsRevalidatedWith304(_ cacheControl: String, _ etagOption: String) async throws {
        // Given: a stored response that must be revalidated before use.
        let name = try makeSource("stale")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": cacheControl, "etag": etagOption]))
        let key = request.dataCacheKey
        let first = try await pipeline.prefetchData(for: request).response
        cache.flush()
        let before = try storedMetadata(key)
        let dataFile = cache.url(for: key)
        let (bytesBefore, inodeBefore) = (try Data(contentsOf: dataFile), try inode(of: dataFile))
        let etag = try #require(before.etag)
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then: a conditional request, answered 304 with no body.
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.count == 2)
        let revalidation = try #require(logged.last)
        #expect(revalidation.headers["if-none-match"] == etag)
        #expect(revalidation.status == 304)
        #expect(revalidation.bytes == 0)
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(second.downloadAttempts == 1)
        // ... the metadata was refreshed, the data file neither rewritten nor changed.
        cache.flush()
        let after = try storedMetadata(key)
        #expect(after.responseTime > before.responseTime)
        #expect(after.requestTime > before.requestTime)
        #expect(after.etag == etag)
        #expect(try Data(contentsOf: dataFile) == bytesBefore)
        #expect(try inode(of: dataFile) == inodeBefore)
        #expect(bytesBefore == (try Data(contentsOf: originFile(name))))
    }

    @Test func lastModifiedOnlyEntryIsRevalidatedWithIfModifiedSince() async throws {
        // Given: a stale entry whose only validator is Last-Modified.
        let name = try makeSource("last-modified")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0", "lm": "auto"]))
        _ = try await pipeline.prefetchData(for: request).response
        let stored = try storedMetadata(request.dataCacheKey)
        #expect(stored.etag == nil)
        let lastModified = try #require(stored.lastModified)
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.count == 2)
        let revalidation = try #require(logged.last)
        #expect(revalidation.headers["if-modified-since"] == lastModified)
        #expect(revalidation.headers["if-none-match"] == nil)
        #expect(revalidation.status == 304)
        #expect(second.source == .revalidated)
    }

    @Test(arguments: [["cc": "max-age=60", "date": "-120"], ["cc": "max-age=60", "age": "120"],
                      ["expires": "-10"], ["cc": "s-maxage=0, max-age=3600"]])
    func responseStaleOnArrivalIsRevalidated(_ options: [String: String]) async throws {
        // Given: a response whose age (Date in the past, Age) already exceeds
        // its lifetime, or which expired, or whose s-maxage (which a shared
        // cache obeys before max-age) is 0.
        let name = try makeSource("stale-on-arrival")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, options.merging(["etag": "auto"]) { $1 }))
        _ = try await pipeline.prefetchData(for: request).response
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then: it was not served from the disk as is, but revalidated.
        #expect(second.source == .revalidated)
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.map(\.status) == [200, 304])
    }

    @Test(arguments: [["expires": "+3600"], ["cc": "s-maxage=3600, max-age=0"], ["lm": "auto"]])
    func responseWithALifetimeIsFresh(_ options: [String: String]) async throws {
        // Given: a lifetime from Expires, from s-maxage, or (heuristically)
        // from a Last-Modified a day ago (10 %: 2.4 hours).
        let name = try oldCopy(of: "img-0003.jpg", label: "lifetime").name
        let id = TestEnvironment.uniqueName("lifetime")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, options.merging(["id": id]) { $1 }))
        _ = try await pipeline.prefetchData(for: request).response
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then
        #expect(second.source == .disk)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await FaultLog.requests(id: id, atLeast: 1).count == 1)
    }

    @Test func staleEntryWithoutValidatorIsDownloadedAgain() async throws {
        // Given: a stale entry with neither ETag nor Last-Modified.
        let name = try makeSource("no-validator")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0"]))
        _ = try await pipeline.prefetchData(for: request).response
        #expect(cache.metadata(for: request.dataCacheKey) != nil)
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then: an unconditional request, and a full download.
        #expect(second.source == .network)
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.map(\.status) == [200, 200])
        #expect(logged.last?.headers["if-none-match"] == nil)
        #expect(logged.last?.headers["if-modified-since"] == nil)
    }

    @Test func changedETagDownloadsAgain() async throws {
        // Given: a stale entry, and the origin's file changes afterwards.
        let name = try makeSource("changed")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0", "etag": "auto"]))
        let key = request.dataCacheKey
        _ = try await pipeline.prefetchData(for: request).response
        let oldETag = try #require(try storedMetadata(key).etag)
        let oldBytes = try Data(contentsOf: originFile(name))
        let newBytes = try Data(contentsOf: Origin.makeImage(String(name.dropLast(4)), width: 200, height: 150))
        #expect(newBytes != oldBytes)
        // When
        let second = try await pipeline.prefetchData(for: request).response
        // Then: the conditional request got the new version, which replaced the entry.
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.count == 2)
        #expect(logged.last?.headers["if-none-match"] == oldETag)
        #expect(logged.last?.status == 200)
        #expect(logged.last?.bytes == newBytes.count)
        #expect(second.source == .network)
        cache.flush()
        #expect(cache.cachedData(for: key) == newBytes)
        let newETag = try #require(try storedMetadata(key).etag)
        #expect(newETag != oldETag)
    }

    // MARK: What is not stored

    @Test(arguments: ["no-store", "private", "private, max-age=3600", "max-age=3600, no-store"])
    func noStoreAndPrivateResponsesAreNotStored(_ cacheControl: String) async throws {
        // Given: a response a shared cache must not keep.
        let name = try makeSource("not-stored")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": cacheControl, "etag": "auto"]))
        // When: it is prefetched twice.
        let first = try await pipeline.prefetchData(for: request).response
        let filesAfterFirst = cache.fileNames()
        let second = try await pipeline.prefetchData(for: request).response
        // Then: nothing was stored, and the second prefetch downloaded again.
        #expect(filesAfterFirst.isEmpty)
        #expect(cache.fileNames().isEmpty)
        #expect(first.source == .network && second.source == .network)
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.count == 2)
        #expect(logged.allSatisfy { $0.status == 200 && $0.headers["if-none-match"] == nil })
    }

    @Test func noStoreAnswerToARevalidationRemovesTheEntry() async throws {
        // Given: a stale entry whose validator the origin no longer has, for
        // a URL the origin now answers with no-store.
        let name = try makeSource("no-store-later")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "no-store", "etag": "auto"]))
        let key = request.dataCacheKey
        let past = Date(timeIntervalSinceNow: -600)
        let stale = HTTPCacheMetadata(url: key, statusCode: 200, requestTime: past, responseTime: past,
                                      etag: "\"an-older-version\"", cacheControl: "max-age=60")
        try await cache.write(Data("older bytes".utf8), for: key, metadata: stale.encoded())
        // When
        let response = try await pipeline.prefetchData(for: request).response
        // Then: the conditional request got a 200 that may not be stored, and
        // the older entry is gone with it.
        let logged = try await FaultLog.requests(file: name, atLeast: 1)
        #expect(logged.first?.headers["if-none-match"] == "\"an-older-version\"")
        #expect(logged.first?.status == 200)
        #expect(response.source == .network)
        #expect(cache.fileNames().isEmpty)
    }

    // MARK: Processed variants

    static let thumbnail = ThumbnailOptions(maxPixelSize: 64)

    /// A pipeline storing only variants for processed requests (`.automatic`).
    func automaticPipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: cache, mode: .http)
        configuration.dataCachePolicy = .automatic
        return ImagePipeline(configuration: configuration)
    }

    @Test func processedVariantSurvives304WithoutDecoding() async throws {
        // Given: a thumbnail made from a source that is stale at once.
        let pipeline = automaticPipeline()
        let name = try makeSource("variant-304")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0", "etag": "auto"]),
                                   thumbnail: Self.thumbnail)
        let first = try await pipeline.prefetchImage(for: request).response
        cache.flush()
        let variantFile = cache.url(for: request.processedDataCacheKey)
        let variantBytes = try Data(contentsOf: variantFile)
        let variantInode = try inode(of: variantFile)
        let variantMetadata = try storedMetadata(request.processedDataCacheKey)
        let (decodes, encodes) = (pipeline.counters.decodes, pipeline.counters.encodes)
        #expect(first.source == .network)
        #expect(decodes == 1 && encodes == 1)
        // ... under `.automatic` the original is not kept, only its metadata.
        #expect(!cache.containsData(for: request.dataCacheKey))
        #expect(cache.metadata(for: request.dataCacheKey) != nil)
        // When
        let second = try await pipeline.prefetchImage(for: request).response
        // Then: one 304 for the source, no decode or encode, the variant
        // untouched and reported with its file's size.
        #expect(second.source == .revalidated)
        #expect(second.cacheURL == variantFile && second.byteCount == variantBytes.count)
        #expect(pipeline.counters.decodes == decodes)
        #expect(pipeline.counters.encodes == encodes)
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.map(\.status) == [200, 304])
        cache.flush()
        #expect(try Data(contentsOf: variantFile) == variantBytes)
        #expect(try inode(of: variantFile) == variantInode)
        // ... and the variant's metadata was refreshed.
        #expect(try storedMetadata(request.processedDataCacheKey).responseTime > variantMetadata.responseTime)
    }

    @Test func freshVariantIsServedWithoutARequest() async throws {
        // Given: a thumbnail of a source fresh for an hour.
        let pipeline = automaticPipeline()
        let name = try makeSource("variant-fresh")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=3600", "etag": "auto"]),
                                   thumbnail: Self.thumbnail)
        _ = try await pipeline.prefetchImage(for: request).response
        // When
        let second = try await pipeline.prefetchImage(for: request).response
        // Then
        #expect(second.source == .disk)
        #expect(pipeline.counters.decodes == 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await FaultLog.requests(file: name, atLeast: 1).count == 1)
    }

    @Test(arguments: ["max-age=3600", "max-age=0"])
    func prefetchDataStoresTheOriginalWhenOnlyItsMetadataIsCached(_ cacheControl: String) async throws {
        // Given: under `.automatic`, a thumbnail was prefetched: the source's
        // metadata is on disk, its data is not.
        let pipeline = automaticPipeline()
        let name = try makeSource("metadata-only")
        let url = try FaultOrigin.url(file: name, ["cc": cacheControl, "etag": "auto"])
        _ = try await pipeline.prefetchImage(for: ImageRequest(url: url, thumbnail: Self.thumbnail)).response
        #expect(cache.metadata(for: url.absoluteString) != nil)
        #expect(!cache.containsData(for: url.absoluteString))
        // When: the original itself is prefetched (which `.automatic` stores).
        let response = try await pipeline.prefetchData(for: ImageRequest(url: url)).response
        // Then: the original data is in the disk cache.
        cache.flush()
        #expect(cache.cachedData(for: url.absoluteString) == (try Data(contentsOf: originFile(name))),
                "prefetchData finished with source \(response.source), cacheURL \(String(describing: response.cacheURL))")
        #expect(response.cacheURL != nil)
    }

    @Test func processedVariantIsRebuiltWhenTheSourceChanges() async throws {
        // Given: a thumbnail of a 320x240 source, stale at once.
        let pipeline = automaticPipeline()
        let name = try makeSource("variant-changed")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0", "etag": "auto"]),
                                   thumbnail: Self.thumbnail)
        _ = try await pipeline.prefetchImage(for: request).response
        cache.flush()
        let variantFile = cache.url(for: request.processedDataCacheKey)
        let oldVariant = try Data(contentsOf: variantFile)
        let oldValidator = try storedMetadata(request.processedDataCacheKey).etag
        #expect(try ImageHeader(data: oldVariant).width == 64)
        // When: the source becomes a 150x300 image.
        _ = try Origin.makeImage(String(name.dropLast(4)), width: 150, height: 300)
        let second = try await pipeline.prefetchImage(for: request).response
        // Then: the variant was made again from the new source.
        #expect(second.source == .network)
        #expect(pipeline.counters.decodes == 2)
        #expect(pipeline.counters.encodes == 2)
        cache.flush()
        let newVariant = try Data(contentsOf: variantFile)
        #expect(newVariant != oldVariant)
        #expect(second.cacheURL == variantFile && second.byteCount == newVariant.count)
        #expect(try ImageHeader(data: newVariant).height == 64)
        let newValidator = try storedMetadata(request.processedDataCacheKey).etag
        #expect(newValidator != oldValidator)
        #expect(newValidator == (try storedMetadata(request.dataCacheKey)).etag)
    }

    @Test func changedSourceOfAVariantIsDownloadedOnce() async throws {
        // Given: a thumbnail of a stale source, and the source changes.
        let pipeline = automaticPipeline()
        let name = try makeSource("variant-once")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "max-age=0", "etag": "auto"]),
                                   thumbnail: Self.thumbnail)
        _ = try await pipeline.prefetchImage(for: request).response
        _ = try Origin.makeImage(String(name.dropLast(4)), width: 150, height: 300)
        // When
        _ = try await pipeline.prefetchImage(for: request).response
        // Then: the conditional request's 200 carried the new source, which
        // is all the rebuild needs: no further request reaches the origin.
        try await Task.sleep(for: .milliseconds(200))  // let late log lines land
        let logged = try await FaultLog.requests(file: name, atLeast: 2)
        #expect(logged.map(\.status) == [200, 200], "origin saw \(logged.map { ($0.status, $0.headers["if-none-match"] ?? "-") })")
        #expect(pipeline.counters.downloads == 2)
    }

    // MARK: Aggressive mode

    @Test func aggressiveModeIgnoresHeaders() async throws {
        // Given: the aggressive mode, and a no-store response.
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache, mode: .aggressive))
        let name = try makeSource("aggressive")
        let request = ImageRequest(url: try FaultOrigin.url(file: name, ["cc": "no-store", "etag": "auto"]))
        // When
        let first = try await pipeline.prefetchData(for: request).response
        let second = try await pipeline.prefetchData(for: request).response
        // Then: stored anyway, without metadata, and served from disk.
        #expect(first.source == .network)
        #expect(second.source == .disk)
        cache.flush()
        #expect(cache.cachedData(for: request.dataCacheKey) == (try Data(contentsOf: originFile(name))))
        #expect(cache.metadata(for: request.dataCacheKey) == nil)
        #expect(try await FaultLog.requests(file: name, atLeast: 1).count == 1)
    }
}
