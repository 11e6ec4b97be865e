import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("DataLoader")
struct DataLoaderTests {
    let loader = DataLoader.testOrigin

    @Test func downloadsTheOriginsBytes() async throws {
        let file = try Origin.makeImage(TestEnvironment.uniqueName("loader"), format: .png)
        let response = try await loader.data(from: try Origin.url(of: file))
        #expect(response.statusCode == 200)
        #expect(response.data == (try Data(contentsOf: file)))
        #expect(response.headers["content-type"] == "image/png")
    }

    @Test func reportsProgressUpToTheTotal() async throws {
        // Given: a ~150 KB file served at 100 KB/s, so it arrives in several chunks.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("progress"), width: 400, height: 400)
        let size = Int64(try Data(contentsOf: file).count)
        let reports = Mutex<[(Int64, Int64?)]>([])
        // When
        _ = try await loader.data(from: try Origin.url(of: file, slow: true)) { completed, total in
            reports.withLock { $0.append((completed, total)) }
        }
        // Then: several increasing reports, the last one complete.
        let seen = reports.withLock { $0 }
        #expect(seen.count >= 2)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.0 < $1.0 })
        #expect(seen.last?.0 == size)
        #expect(seen.last?.1 == size)
    }

    @Test func notFoundFailsWithTheStatus() async throws {
        await #expect(throws: DataLoaderError.httpStatus(404)) {
            try await loader.data(from: try Origin.url(path: "does-not-exist.jpg"))
        }
    }

    @Test func aMalformedURLFailsAsInvalidAndIsNotRetried() async throws {
        // A port out of range reaches libcurl only if something let it past
        // the URL checks: libcurl refuses it (curl error 3), which no later
        // attempt changes.
        let error = await #expect(throws: DataLoaderError.self) {
            try await loader.data(from: URL(string: "http://127.0.0.1:99999/x.jpg")!)
        }
        guard case .invalidURL = error else {
            Issue.record("expected invalid_url, got \(String(describing: error))")
            return
        }
        #expect(error?.code == "invalid_url")
        #expect(!RetryPolicy.isTransient(error!))
    }

    @Test func refusedConnectionFailsWithATransportError() async throws {
        let error = await #expect(throws: DataLoaderError.self) {
            try await loader.data(from: URL(string: "http://127.0.0.1:1/x.jpg")!)
        }
        guard case .transport(let code, _) = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(code == 7)  // CURLE_COULDNT_CONNECT
    }

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1/x", "ftp://127.0.0.1/x.jpg"])
    func refusesSchemesOtherThanHTTP(_ url: String) async {
        await #expect(throws: DataLoaderError.unsupportedScheme) {
            try await loader.data(from: URL(string: url)!)
        }
    }

    @Test func refusesABodyOverTheLimit() async throws {
        var configuration = DataLoader.Configuration.testOrigin
        configuration.maximumBodySize = 10_000
        let file = try Origin.makeImage(TestEnvironment.uniqueName("big"), width: 200, height: 200)
        await #expect(throws: DataLoaderError.bodyTooLarge(limit: 10_000)) {
            try await DataLoader(configuration: configuration).data(from: try Origin.url(of: file))
        }
    }

    @Test func cancellingTheCallerAbortsTheTransfer() async throws {
        // Given: a ~270 KB download served at 100 KB/s.
        let file = try Origin.makeImage(TestEnvironment.uniqueName("cancel"), width: 500, height: 500)
        let size = try Data(contentsOf: file).count
        let url = try Origin.url(of: file, slow: true)
        // When: the caller is cancelled once the body has started to arrive
        // (not after a fixed delay: on a loaded machine the request may not
        // have reached the origin yet, and then the origin logs nothing).
        // A loader of its own: the shared one's per-host connection limit
        // may be taken by other suites' slow downloads running in parallel.
        let loader = DataLoader(configuration: .testOrigin)
        let received = Mutex<Int64>(0)
        let task = Task { try await loader.data(from: url) { completed, _ in received.withLock { $0 = completed } } }
        let started = await eventually { received.withLock { $0 } > 0 }
        #expect(started)
        task.cancel()
        // Then: it ends as cancelled, and the origin saw the connection close
        // before it had sent the whole file.
        await #expect(throws: DataLoaderError.cancelled) { try await task.value }
        let logged = try await eventuallyValue { try Origin.loggedRequests(path: file.lastPathComponent, slow: true).first }
        #expect(try #require(logged).bytes < size)
    }

    @Test func parallelDownloadsFromOneHostRunSideBySide() async throws {
        // Given: three ~260 KB files served at 100 KB/s (about 2 s each).
        let files = try (0..<3).map { try Origin.makeImage(TestEnvironment.uniqueName("side-\($0)"), width: 600, height: 600) }
        final class Recorder: Sendable {
            let received = Mutex<[Int: Int64]>([:])
            let atFirstCompletion = Mutex<[Int: Int64]?>(nil)
        }
        let recorder = Recorder()
        // When: all three start at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, file) in files.enumerated() {
                group.addTask {
                    _ = try await loader.data(from: try Origin.url(of: file, slow: true)) { completed, _ in
                        recorder.received.withLock { $0[index] = completed }
                    }
                    let snapshot = recorder.received.withLock { $0 }
                    recorder.atFirstCompletion.withLock { if $0 == nil { $0 = snapshot } }
                }
            }
            try await group.waitForAll()
        }
        // Then: each had received data before the first one finished (none
        // waited for another's connection).
        let snapshot = try #require(recorder.atFirstCompletion.withLock { $0 })
        #expect((0..<3).allSatisfy { (snapshot[$0] ?? 0) > 0 }, "\(snapshot)")
    }

    @Test func manyConcurrentDownloadsAllSucceed() async throws {
        let files = try (0..<6).map { try Origin.makeImage(TestEnvironment.uniqueName("many-\($0)"), width: 64, height: 64) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                for file in files {
                    group.addTask {
                        try await loader.data(from: try Origin.url(of: file)).data == (try Data(contentsOf: file))
                    }
                }
            }
            for try await matches in group { #expect(matches) }
        }
    }
}
