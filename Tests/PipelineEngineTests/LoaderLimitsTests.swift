import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// The loader's transport limits and SSRF guard against the fault origin:
/// low-speed timeouts, body size limits (with and without Content-Length),
/// redirects into the private network and schemes other than http(s).
/// `AddressPolicyTests` covers the policy itself and nginx's redirects; these
/// add the fault origin's `/redirect`, the pipeline (no retries) and schemes.
@Suite("Loader limits")
struct LoaderLimitsTests {
    /// The test origin's loader configuration, adjusted.
    func loader(_ configure: (inout DataLoader.Configuration) -> Void) -> DataLoader {
        var configuration = DataLoader.Configuration.testOrigin
        configure(&configuration)
        return DataLoader(configuration: configuration)
    }

    /// A loader that allows only the host name `localhost`: the fault origin
    /// reached by that name is allowed, the same origin reached as
    /// `127.0.0.1` (or any other private address) is not.
    func localhostOnlyLoader() -> DataLoader {
        var configuration = DataLoader.Configuration()
        configuration.addressPolicy.allowedHosts = ["localhost"]
        return DataLoader(configuration: configuration)
    }

    /// The fault origin's base URL with `localhost` as its host.
    func faultOriginByName(_ path: String) throws -> URL {
        let port = try #require(TestEnvironment.faultOriginURL().port)
        return try #require(URL(string: "http://localhost:\(port)/\(path)"))
    }

    /// `/redirect?to=TARGET&id=ID` on the fault origin reached as `localhost`.
    func redirectByName(to target: String, id: String) throws -> URL {
        try faultOriginByName("redirect?to=\(FaultOrigin.percentEncodedForQuery(target))&id=\(id)")
    }

    // MARK: Timeouts

    @Test func slowOriginHitsTheLowSpeedTimeout() async throws {
        // Given: a response that stalls after 1,000 bytes, and a loader that
        // wants at least 1,000 B/s over any second.
        let id = TestEnvironment.uniqueName("stall")
        let url = try FaultOrigin.url(file: "img-0001.jpg", ["id": id, "stall": "1000"])
        let loader = self.loader {
            $0.lowSpeedLimit = 1000
            $0.lowSpeedTime = .seconds(1)
        }
        // When / Then
        await #expect(throws: DataLoaderError.timedOut) { try await loader.data(from: url) }
        // ... the origin saw the client hang up after the 1,000 bytes.
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        #expect(logged.map(\.bytes) == [1000])
    }

    @Test func totalTimeoutEndsASlowDownload() async throws {
        // Given: a body sent at 20 KB/s (fast enough for the low-speed limit),
        // and a total timeout of one second.
        let url = try FaultOrigin.url(file: "large.jpg", ["rate": "20000", "id": TestEnvironment.uniqueName("total")])
        let loader = self.loader { $0.totalTimeout = .seconds(1) }
        // When / Then
        await #expect(throws: DataLoaderError.timedOut) { try await loader.data(from: url) }
    }

    @Test func stalledDownloadIsRetriedThroughThePipeline() async throws {
        // Given: every response stalls (a timeout is transient).
        let id = TestEnvironment.uniqueName("stall-retry")
        let url = try FaultOrigin.url(file: "img-0001.jpg", ["id": id, "stall": "1000"])
        let loader = self.loader {
            $0.lowSpeedLimit = 1000
            $0.lowSpeedTime = .seconds(1)
        }
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: nil, maximumAttempts: 2, loader: loader))
        // When
        let task = pipeline.loadData(for: ImageRequest(url: url))
        let result = await task.result
        // Then
        #expect(result.failure == .dataLoadingFailed(.timedOut))
        #expect(result.failure?.code == "timed_out")
        #expect(await task.retries().map(\.error) == [.timedOut])
    }

    // MARK: Body size

    @Test(arguments: [false, true])
    func bodyOverTheLimitFails(chunked: Bool) async throws {
        // Given: a ~1.5 MB body, with or without Content-Length, and a 100 KB limit.
        let id = TestEnvironment.uniqueName(chunked ? "big-chunked" : "big-length")
        var options = ["id": id]
        if chunked { options["chunked"] = "1" }
        let url = try FaultOrigin.url(file: "large.jpg", options)
        let loader = self.loader { $0.maximumBodySize = 100_000 }
        // When / Then
        await #expect(throws: DataLoaderError.bodyTooLarge(limit: 100_000)) { try await loader.data(from: url) }
        // ... after one request. (How many bytes the origin managed to write
        // before the client hung up depends on socket buffers: not asserted.)
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        #expect(logged.count == 1)
        #expect(logged.first?.headers["range"] == nil)
    }

    @Test func bodyWithinTheLimitPassesChunked() async throws {
        // Given: a chunked body just under the limit.
        let bytes = try Data(contentsOf: originFile("img-0001.jpg"))
        let url = try FaultOrigin.url(file: "img-0001.jpg", ["chunked": "1"])
        let loader = self.loader { $0.maximumBodySize = Int64(bytes.count) }
        // When
        let response = try await loader.data(from: url)
        // Then
        #expect(response.data == bytes)
        #expect(response.headers["content-length"] == nil)
    }

    @Test func bodyTooLargeIsNotRetried() async throws {
        let id = TestEnvironment.uniqueName("big-pipeline")
        let url = try FaultOrigin.url(file: "large.jpg", ["id": id, "chunked": "1"])
        let loader = self.loader { $0.maximumBodySize = 100_000 }
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: nil, loader: loader))
        let task = pipeline.loadData(for: ImageRequest(url: url))
        #expect(await task.result.failure == .dataLoadingFailed(.bodyTooLarge(limit: 100_000)))
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await FaultLog.requests(id: id, atLeast: 1).count == 1)
    }

    // MARK: Redirects and the SSRF guard

    @Test func redirectToAnAllowedHostIsFollowed() async throws {
        // Given (the control case): a redirect that stays on the allowed name.
        let id = TestEnvironment.uniqueName("redirect-ok")
        let target = try faultOriginByName("files/img-0001.jpg?id=\(id)-target")
        // When
        let response = try await localhostOnlyLoader().data(from: try redirectByName(to: target.absoluteString, id: id))
        // Then
        #expect(response.data == (try Data(contentsOf: originFile("img-0001.jpg"))))
        #expect(response.url == target.absoluteString)
        #expect(try await FaultLog.requests(id: "\(id)-target", atLeast: 1).count == 1)
    }

    @Test func redirectToLoopbackFromAllowedHostIsRefused() async throws {
        // Given: `localhost` is allowed; it redirects to the same origin as
        // the bare address 127.0.0.1, which is not.
        let id = TestEnvironment.uniqueName("redirect-loopback")
        let port = try #require(TestEnvironment.faultOriginURL().port)
        let target = "http://127.0.0.1:\(port)/files/img-0001.jpg?id=\(id)-target"
        // When / Then
        await #expect(throws: DataLoaderError.addressRefused("127.0.0.1")) {
            try await localhostOnlyLoader().data(from: try redirectByName(to: target, id: id))
        }
        // ... the redirect was served, its target never reached.
        let logged = try await FaultLog.requests(id: id, atLeast: 1)
        #expect(logged.map(\.status) == [302])
        try await Task.sleep(for: .milliseconds(100))
        #expect(try FaultOrigin.requests(id: "\(id)-target").isEmpty)
    }

    @Test(arguments: [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://10.0.0.1/", "10.0.0.1"),
        ("http://192.168.1.1:8080/admin", "192.168.1.1"),
    ])
    func redirectToMetadataAddressIsRefused(_ target: String, _ refused: String) async throws {
        // Given: an allowed host redirecting into the private network.
        let id = TestEnvironment.uniqueName("redirect-private")
        // When / Then: refused before connecting (an attempt would time out
        // or be refused by the network instead).
        await #expect(throws: DataLoaderError.addressRefused(refused)) {
            try await localhostOnlyLoader().data(from: try redirectByName(to: target, id: id))
        }
        #expect(try await FaultLog.requests(id: id, atLeast: 1).map(\.status) == [302])
    }

    /// IPv6 addresses are read from libcurl's socket address in full (a
    /// `sockaddr_in6` is longer than the `curl_sockaddr.addr` field it starts in).
    @Test(arguments: [
              ("http://[::1]:9/", "0:0:0:0:0:0:0:1"),
              ("http://[::ffff:169.254.169.254]/latest/meta-data/", "0:0:0:0:0:ffff:a9fe:a9fe"),
              ("http://[fd00::1]/", "fd00:0:0:0:0:0:0:1"),
          ])
    func ipv6PrivateAddressIsRefused(_ target: String, _ refused: String) async throws {
        // Given: an IPv6 literal inside the private network, requested
        // directly and through a redirect from an allowed host.
        let url = try #require(URL(string: target))
        let id = TestEnvironment.uniqueName("redirect-ipv6")
        // When / Then: refused, and the process survives it.
        let direct = await #expect(throws: DataLoaderError.self) { try await localhostOnlyLoader().data(from: url) }
        let redirected = await #expect(throws: DataLoaderError.self) {
            try await localhostOnlyLoader().data(from: try redirectByName(to: target, id: id))
        }
        for error in [direct, redirected] {
            guard case .addressRefused(let address) = error else {
                Issue.record("expected address_refused, got \(String(describing: error))")
                continue
            }
            // The IPv4-mapped form may be reported either way.
            #expect(address == refused || address == "169.254.169.254")
        }
    }

    // MARK: Schemes

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1", "ftp://127.0.0.1/x.jpg", "dict://127.0.0.1:11211/stat"])
    func fileAndGopherSchemesAreRefused(_ text: String) async throws {
        let url = try #require(URL(string: text))
        // Then: refused by the loader,
        await #expect(throws: DataLoaderError.unsupportedScheme) { try await DataLoader.testOrigin.data(from: url) }
        // ... and by the pipeline, at once and without a retry.
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: nil))
        let task = pipeline.loadData(for: ImageRequest(url: url))
        #expect(await task.result.failure == .dataLoadingFailed(.unsupportedScheme))
        #expect(await task.retries().isEmpty)
    }

    @Test(arguments: ["gopher://127.0.0.1:70/_GET%20/", "file:///etc/passwd", "dict://127.0.0.1:11211/stat", "ftp://127.0.0.1/x"])
    func redirectToAnotherSchemeIsRefused(_ target: String) async throws {
        // Given: an allowed origin redirecting to a non-HTTP scheme.
        let id = TestEnvironment.uniqueName("redirect-scheme")
        let url = try FaultLog.tagging(try FaultOrigin.redirect(to: #require(URL(string: target))), id: id)
        // When / Then
        await #expect(throws: DataLoaderError.unsupportedScheme) { try await DataLoader.testOrigin.data(from: url) }
        // ... and through the pipeline, without a retry.
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: nil))
        let task = pipeline.loadData(for: ImageRequest(url: url))
        #expect(await task.result.failure == .dataLoadingFailed(.unsupportedScheme))
        #expect(await task.retries().isEmpty)
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await FaultLog.requests(id: id, atLeast: 2).map(\.status) == [302, 302])
    }

    @Test func tooManyRedirectsFail() async throws {
        // Given: a chain of redirects longer than the loader follows.
        var url = try FaultOrigin.url(file: "img-0001.jpg")
        for _ in 0..<4 { url = try FaultOrigin.redirect(to: url) }
        let loader = self.loader { $0.maximumRedirects = 2 }
        // When / Then
        await #expect(throws: DataLoaderError.tooManyRedirects) { try await loader.data(from: url) }
        let pipeline = ImagePipeline(configuration: .faultOrigin(dataCache: nil, loader: loader))
        let task = pipeline.loadData(for: ImageRequest(url: url))
        #expect(await task.result.failure == .dataLoadingFailed(.tooManyRedirects))
        #expect(await task.retries().isEmpty)
    }
}

extension FaultOrigin {
    /// `text` encoded for a query value (everything but unreserved characters).
    static func percentEncodedForQuery(_ text: String) -> String {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
