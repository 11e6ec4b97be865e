import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

/// Downloads cut off half-way are resumed with `Range` / `If-Range`, in the
/// same pipeline or from the `.partial` file another worker left in the
/// cache folder. The fault origin cuts the first response of each id after
/// `cut` body bytes.
@Suite("Resumable downloads")
struct ResumableDownloadTests {
    let cache: DataCache

    init() throws {
        cache = try DataCache.temporary("resume")
    }

    /// `large.jpg` (about 1.5 MB, always the same bytes): its name and bytes.
    func largeFile() throws -> (name: String, bytes: Data) {
        ("large.jpg", try Data(contentsOf: originFile("large.jpg")))
    }

    static let cutAt = 300_000

    /// The strong ETag the fault origin sends for `name` now (`etag=auto`).
    func currentETag(of name: String) async throws -> String {
        try #require(try await DataLoader.testOrigin.data(from: FaultOrigin.url(file: name, ["etag": "auto"])).headers["etag"])
    }

    @Test func cutDownloadIsResumedWithARangeRequest() async throws {
        // Given: the first response is cut after 300,000 bytes.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("resume")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "etag": "auto"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let task = pipeline.loadData(for: ImageRequest(url: url))
        let response = try await task.response
        // Then: the data is whole, after two attempts,
        #expect(response.data == bytes)
        #expect(response.downloadAttempts == 2)
        #expect(response.source == .network)
        #expect(try Data(contentsOf: #require(response.cacheURL)) == bytes)
        // ... the second asked only for the rest, and got it.
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[0].status == 200 && logged[0].bytes == Self.cutAt)
        #expect(logged[0].headers["range"] == nil)
        #expect(logged[1].headers["if-range"] == (try await currentETag(of: name)))
        #expect(logged[1].headers["range"] == "bytes=\(Self.cutAt)-")
        #expect(logged[1].status == 206)
        #expect(logged[1].bytes == bytes.count - Self.cutAt)
        // ... and no partial file is left.
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: cache.url(for: url.absoluteString, kind: .partial).path))
        #expect(await task.retries().map(\.attempt) == [1])
    }

    @Test func progressOfAResumedDownloadCountsTheWholeBody() async throws {
        // Given: a download cut after 300,000 bytes and resumed.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("resume-progress")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "etag": "auto"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let progress = await pipeline.loadData(for: ImageRequest(url: url)).progress()
        // Then: progress ends at the whole size, never beyond it.
        let size = Int64(bytes.count)
        #expect(progress.last?.0 == size)
        #expect(progress.allSatisfy { $0.0 <= size && ($0.1 ?? size) == size }, "\(progress)")
    }

    @Test func secondCutResumesFromTheLatestByte() async throws {
        // Given: the first two responses are cut after 300,000 bytes each.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("resume-twice")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "cutcount": "2", "etag": "auto"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: three attempts, each asking from where the bytes so far end.
        #expect(response.data == bytes)
        #expect(response.downloadAttempts == 3)
        let logged = try await FaultLog.requests(id: id, atLeast: 3)
        try #require(logged.count == 3)
        #expect(logged.map { $0.headers["range"] } == [nil, "bytes=\(Self.cutAt)-", "bytes=\(2 * Self.cutAt)-"])
        #expect(logged.map(\.status) == [200, 206, 206])
        #expect(logged[2].bytes == bytes.count - 2 * Self.cutAt)
    }

    @Test func lastModifiedAloneAllowsResuming() async throws {
        // Given: a cut download whose only validator is Last-Modified, a
        // day before the response's Date (so it is a strong validator).
        let (name, bytes) = try oldCopy(of: "large.jpg", label: "resume-lm")
        let id = TestEnvironment.uniqueName("resume-lm")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "lm": "auto"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: If-Range carries the date, and the origin honoured the range.
        #expect(response.data == bytes)
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        let ifRange = try #require(logged[1].headers["if-range"])
        #expect(ifRange.hasSuffix(" GMT"))
        #expect(logged[1].headers["range"] == "bytes=\(Self.cutAt)-")
        #expect(logged[1].status == 206)
    }

    @Test func resumedDownloadStillRespectsTheBodyLimit() async throws {
        // Given: a 1.5 MB body sent chunked (no Content-Length to check up
        // front), cut after 900,000 bytes, and a 1,000,000-byte limit.
        let (name, bytes) = try largeFile()
        try #require(bytes.count > 1_000_000)
        let id = TestEnvironment.uniqueName("resume-limit")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": "900000", "etag": "auto", "chunked": "1"])
        var loader = DataLoader.Configuration.testOrigin
        loader.maximumBodySize = 1_000_000
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache, loader: DataLoader(configuration: loader)))
        // When: the first attempt is cut under the limit, and the second resumes.
        let result = await pipeline.loadData(for: ImageRequest(url: url)).result
        // Then: the whole body is over the limit: the download fails, nothing is stored.
        #expect(result.failure == .dataLoadingFailed(.bodyTooLarge(limit: 1_000_000)),
                "got \(result.map { "\($0.byteCount) bytes from \($0.source)" })")
        cache.flush()
        #expect(!cache.containsData(for: url.absoluteString))
    }

    @Test func partialDataSurvivesInTheCacheFolder() async throws {
        // Given: a worker that does not retry, and a cut download.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("partial")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "etag": "auto"])
        let key = url.absoluteString
        let first = ImagePipeline(configuration: .faultOrigin(dataCache: cache, maximumAttempts: 1))
        // When: its download fails half-way,
        let failed = await first.prefetchData(for: ImageRequest(url: url)).result
        // Then: it fails with the transport error, and the bytes it got are in
        // the cache folder: one line of JSON, then the first 300,000 bytes.
        guard case .transport = failed.failure?.loaderError else {
            Issue.record("expected a transport error, got \(failed)")
            return
        }
        cache.flush()
        let partialFile = cache.url(for: key, kind: .partial)
        let stored = try Data(contentsOf: partialFile)
        let newline = try #require(stored.firstIndex(of: UInt8(ascii: "\n")))
        let header = try #require(try JSONSerialization.jsonObject(with: stored[..<newline]) as? [String: Any])
        #expect(header["url"] as? String == key)
        #expect(header["total"] as? Int == bytes.count)
        #expect((header["validator"] as? String)?.hasPrefix("\"sha1-") == true)
        #expect(stored[(newline + 1)...] == bytes.prefix(Self.cutAt))
        #expect(!cache.containsData(for: key))

        // When: another worker (a new pipeline on the same folder) loads it,
        let otherCache = try DataCache.unswept(at: cache.directory)
        let second = ImagePipeline(configuration: .faultOrigin(dataCache: otherCache, maximumAttempts: 1))
        let response = try await second.loadData(for: ImageRequest(url: url)).response
        // Then: it asked only for the rest, and the whole data is stored.
        #expect(response.data == bytes)
        #expect(response.downloadAttempts == 1)
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[1].headers["range"] == "bytes=\(Self.cutAt)-")
        #expect(logged[1].headers["if-range"] == header["validator"] as? String)
        #expect(logged[1].status == 206)
        #expect(logged[1].bytes == bytes.count - Self.cutAt)
        otherCache.flush()
        #expect(otherCache.cachedData(for: key) == bytes)
        #expect(!FileManager.default.fileExists(atPath: partialFile.path))
    }

    @Test func twoHundredAnswerToARangeRequestRestartsCleanly() async throws {
        // Given: an origin that announces ranges but ignores them, and a cut download.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("ranges-ignored")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "etag": "auto", "ranges": "ignore"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: the second attempt asked for a range, got the whole body, and
        // the result is that body, with no bytes twice.
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[1].headers["range"] == "bytes=\(Self.cutAt)-")
        #expect(logged[1].status == 200)
        #expect(logged[1].bytes == bytes.count)
        #expect(response.data?.count == bytes.count)
        #expect(response.data == bytes)
        cache.flush()
        #expect(cache.cachedData(for: url.absoluteString) == bytes)
        #expect(cache.partialData(for: url.absoluteString) == nil)
    }

    @Test func progressAfterARangeRequestAnsweredWith200NeverExceedsTheTotal() async throws {
        // Given: an origin that ignores ranges, and a cut download.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("ranges-ignored-progress")
        let url = try FaultOrigin.url(file: name, ["id": id, "cut": String(Self.cutAt), "etag": "auto", "ranges": "ignore"])
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let progress = await pipeline.loadData(for: ImageRequest(url: url)).progress()
        // Then: the full 200 restarts the count: it never goes past the size.
        let size = Int64(bytes.count)
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0.0 <= ($0.1 ?? size) }, "progress past the total: \(progress.filter { $0.0 > ($0.1 ?? size) }.prefix(3))")
        #expect(progress.last.map { $0.0 == size && $0.1 == size } == true, "last: \(String(describing: progress.last))")
    }

    @Test func unsatisfiableRangeStartsOver() async throws {
        // Given: a .partial file (left by another worker) that claims more
        // bytes than the file has, with the file's current validator.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("range-416")
        let url = try FaultOrigin.url(file: name, ["id": id, "etag": "auto"])
        let etag = try await currentETag(of: name)
        let bogus = PartialDownload(url: url.absoluteString, validator: etag, totalLength: nil,
                                    data: bytes + Data(repeating: 0x55, count: 1000))
        try await cache.writePartialData(bogus.encoded(), for: url.absoluteString)
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache, maximumAttempts: 1))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: the range got a 416, then the whole body was asked for, and stored.
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[0].headers["range"] == "bytes=\(bytes.count + 1000)-")
        #expect(logged[0].status == 416)
        #expect(logged[1].headers["range"] == nil)
        #expect(logged[1].status == 200)
        #expect(response.data == bytes)
        cache.flush()
        #expect(cache.cachedData(for: url.absoluteString) == bytes)
        #expect(cache.partialData(for: url.absoluteString) == nil)
    }

    @Test func changedValidatorRestartsWithTheNewBody() async throws {
        // Given: a .partial file whose validator the origin no longer has.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("if-range-mismatch")
        let url = try FaultOrigin.url(file: name, ["id": id, "etag": "auto"])
        let stale = PartialDownload(url: url.absoluteString, validator: "\"sha1-0000000000000000\"",
                                    totalLength: Int64(bytes.count), data: Data(repeating: 0x55, count: Self.cutAt))
        try await cache.writePartialData(stale.encoded(), for: url.absoluteString)
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache, maximumAttempts: 1))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: the If-Range failed, so the origin sent the whole body, which
        // replaced the stale bytes entirely.
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        try #require(logged.count == 1)
        #expect(logged[0].headers["if-range"] == "\"sha1-0000000000000000\"")
        #expect(logged[0].status == 200)
        #expect(response.data == bytes)
        cache.flush()
        #expect(cache.partialData(for: url.absoluteString) == nil)
    }

    @Test(arguments: [[String: String](), ["etag": "weak"], ["ranges": "none", "etag": "auto"]])
    func noUsableValidatorMeansNoResume(_ options: [String: String]) async throws {
        // Given: a cut download whose response cannot be resumed: no
        // validator, a weak ETag, or no Accept-Ranges.
        let (name, bytes) = try largeFile()
        let id = TestEnvironment.uniqueName("no-validator")
        let url = try FaultOrigin.url(file: name, options.merging(["id": id, "cut": String(Self.cutAt)]) { $1 })
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: cache))
        // When
        let response = try await pipeline.loadData(for: ImageRequest(url: url)).response
        // Then: the retry asked for the whole body again, and nothing partial was kept.
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[1].headers["range"] == nil)
        #expect(logged[1].headers["if-range"] == nil)
        #expect(logged[1].status == 200)
        #expect(response.data == bytes)
        #expect(response.downloadAttempts == 2)
        cache.flush()
        #expect(cache.partialData(for: url.absoluteString) == nil)
    }
}
