import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// Retries of failed downloads against the fault origin, whose `fail=`
/// option answers the k-th request of an id with the k-th status.
@Suite("Retries")
struct RetryTests {
    let cache: DataCache

    init() throws {
        cache = try DataCache.temporary("retry")
    }

    /// A pipeline with short backoffs and `maximumAttempts` attempts.
    func pipeline(maximumAttempts: Int = 4, configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.faultOrigin(dataCache: cache, maximumAttempts: maximumAttempts)
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    /// A corpus file of the origin and its bytes.
    func corpusFile() throws -> (name: String, bytes: Data) {
        ("img-0001.jpg", try Data(contentsOf: originFile("img-0001.jpg")))
    }

    @Test(arguments: [503, 500, 502, 504, 408, 429])
    func transientStatusThenSuccessIsRetried(_ status: Int) async throws {
        // Given: the first request fails with a transient status.
        let (name, bytes) = try corpusFile()
        let id = TestEnvironment.uniqueName("retry-\(status)")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": String(status)])
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        let response = try await task.response
        // Then: the second attempt succeeded, and the retry was reported.
        #expect(response.data == bytes)
        #expect(response.downloadAttempts == 2)
        let retries = await task.retries()
        #expect(retries.map(\.attempt) == [1])
        #expect(retries.first?.error == .httpStatus(status))
        #expect(retries.first?.error.code == "http_\(status)")
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        #expect(logged.map(\.status) == [status, 200])
    }

    @Test func serviceUnavailableThenSuccessIsRetried() async throws {
        // Given: a 503, then the file.
        let (name, bytes) = try corpusFile()
        let id = TestEnvironment.uniqueName("retry-503")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503"])
        // When: prefetched into the disk cache.
        let task = pipeline().prefetchData(for: ImageRequest(url: url))
        let events = await task.allEvents()
        let response = try await task.response
        // Then
        #expect(response.source == .network)
        #expect(response.downloadAttempts == 2)
        let retries = events.compactMap { event -> DownloadRetry? in
            if case .retrying(let retry) = event { return retry }
            return nil
        }
        try #require(retries.count == 1)
        #expect(retries[0].attempt == 1)
        #expect(retries[0].error.code == "http_503")
        #expect(retries[0].delay > .zero)
        // ... the retry came between the start and the completion.
        let kinds = events.map { event -> String in
            switch event {
            case .started: "started"
            case .progress: "progress"
            case .retrying: "retrying"
            case .cancelled: "cancelled"
            case .completed: "completed"
            }
        }
        #expect(kinds.first == "started" && kinds.last == "completed")
        #expect(kinds.filter { $0 == "retrying" }.count == 1)
        cache.flush()
        #expect(cache.cachedData(for: url.absoluteString) == bytes)
    }

    @Test(arguments: [400, 403, 404, 410, 501])
    func permanentStatusFailsAtOnce(_ status: Int) async throws {
        // Given: a status that retrying cannot fix.
        let (name, _) = try corpusFile()
        let id = TestEnvironment.uniqueName("permanent-\(status)")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": String(status)])
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then: one request, the status as the error, no retry.
        #expect(result.failure == .dataLoadingFailed(.httpStatus(status)))
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))  // a wrong retry would have been logged by now
        #expect(try await FaultLog.requests(id: id, atLeast: 1).count == 1)
    }

    @Test func notFoundFailsAtOnce() async throws {
        // Given: a file the origin does not have.
        let id = TestEnvironment.uniqueName("not-found")
        let url = try FaultOrigin.url(file: "missing-\(id).jpg", ["id": id])
        // When
        let task = pipeline().prefetchData(for: ImageRequest(url: url))
        let result = await task.result
        // Then
        #expect(result.failure == .dataLoadingFailed(.httpStatus(404)))
        #expect(result.failure?.code == "http_404")
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        #expect(logged.map(\.status) == [404])
        #expect(cache.fileNames().isEmpty)
    }

    @Test func retryAfterIsHonoured() async throws {
        // Given: a 503 asking to come back in a second (the backoff alone would be ~20 ms).
        let (name, bytes) = try corpusFile()
        let id = TestEnvironment.uniqueName("retry-after")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503", "retryafter": "1"])
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        let response = try await task.response
        // Then: the retry waited for the origin's Retry-After (lower bounds only).
        #expect(response.data == bytes)
        let retries = await task.retries()
        try #require(retries.count == 1)
        #expect(retries[0].delay >= .seconds(1))
        let logged = try await FaultLog.requests(id: id, atLeast: 2)
        try #require(logged.count == 2)
        #expect(logged[0].status == 503)
        #expect(logged[1].status == 200)
        #expect(logged[1].ts - logged[0].end >= 0.95, "second request \(logged[1].ts - logged[0].end) s after the first")
    }

    @Test func retryAfterAsADateIsHonoured() async throws {
        // Given: a 503 whose Retry-After is an HTTP-date four seconds ahead
        // (whole seconds, so three to four seconds away when sent; a loaded
        // machine may take a while to read the answer, hence the margin).
        let (name, _) = try corpusFile()
        let id = TestEnvironment.uniqueName("retry-after-date")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503", "retryafter": "date:4"])
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        _ = try await task.response
        // Then
        let retries = await task.retries()
        try #require(retries.count == 1)
        #expect(retries[0].delay >= .seconds(2))
        #expect(retries[0].delay <= .seconds(5))
    }

    @Test(arguments: ["3600", "61", "99999999999999999999", "date:7200"])
    func tooLongRetryAfterFailsNow(_ retryAfter: String) async throws {
        // Given: a 503 asking to come back later than maximumRetryAfter (60 s):
        // in an hour, just over the limit, beyond Int64, at a date two hours ahead.
        let (name, _) = try corpusFile()
        let id = TestEnvironment.uniqueName("retry-after-long")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503", "retryafter": retryAfter])
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then: it fails now with the 503, after one request.
        #expect(result.failure == .dataLoadingFailed(.httpStatus(503)))
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await FaultLog.requests(id: id, atLeast: 1).count == 1)
    }

    @Test func lastErrorAndAttemptsAreReported() async throws {
        // Given: three failures in a row, and three attempts allowed.
        let (name, _) = try corpusFile()
        let id = TestEnvironment.uniqueName("exhausted")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503,500,503"])
        // When
        let task = pipeline(maximumAttempts: 3).loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then: the last error is the task's, after two reported retries.
        #expect(result.failure == .dataLoadingFailed(.httpStatus(503)))
        #expect(result.failure?.code == "http_503")
        let retries = await task.retries()
        #expect(retries.map(\.attempt) == [1, 2])
        #expect(retries.map(\.error) == [.httpStatus(503), .httpStatus(500)])
        try await Task.sleep(for: .milliseconds(100))
        let logged = try await FaultLog.requests(id: id, atLeast: 3)
        #expect(logged.map(\.status) == [503, 500, 503])
    }

    @Test func refusedAddressIsNotRetried() async throws {
        // Given: an allowed origin (127.0.0.1) that redirects to the cloud metadata address.
        let id = TestEnvironment.uniqueName("refused")
        let target = try #require(URL(string: "http://169.254.169.254/latest/meta-data/\(id)"))
        let url = try FaultLog.tagging(try FaultOrigin.redirect(to: target), id: id)
        // When
        let task = pipeline().loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then: refused, once, with no retry.
        #expect(result.failure == .dataLoadingFailed(.addressRefused("169.254.169.254")))
        #expect(result.failure?.code == "address_refused")
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        #expect(logged.map(\.status) == [302])
    }

    @Test func connectionRefusedIsRetried() async throws {
        // Given: a port nothing listens on (a transport error is transient).
        let url = try #require(URL(string: "http://127.0.0.1:1/\(TestEnvironment.uniqueName("refused")).jpg"))
        // When
        let task = pipeline(maximumAttempts: 3).loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then: every attempt was made, and the transport error reported.
        guard case .transport(let code, _) = result.failure?.loaderError else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(code == 7)
        #expect(await task.retries().map(\.attempt) == [1, 2])
    }

    @Test func cancellingDuringTheBackoffStopsTheDownload() async throws {
        // Given: a 503 asking for a 30-second wait.
        let (name, _) = try corpusFile()
        let id = TestEnvironment.uniqueName("cancel-backoff")
        let url = try FaultOrigin.url(file: name, ["id": id, "fail": "503", "retryafter": "30"])
        let pipeline = self.pipeline()
        let task = pipeline.loadData(for: ImageRequest(url: url))
        // When: the task is cancelled while it waits to retry.
        var sawRetry = false
        for await event in task.events {
            if case .retrying = event {
                sawRetry = true
                task.cancel()
            }
        }
        // Then: it ends as cancelled, at once, with no second request.
        #expect(sawRetry)
        #expect(await task.result.failure == .cancelled)
        #expect(await eventually(timeout: .seconds(5)) { pipeline.activeDataFetchCount == 0 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(try FaultOrigin.requests(id: id).count == 1)
    }
}
