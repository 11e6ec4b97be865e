import Foundation
import Scheduler
import Testing
import TestSupport

/// A URL's userinfo (`http://user:password@host/…`) is sent as Basic auth,
/// but its password is masked wherever Warmer publishes or logs the URL:
/// events, the worker's log, `dead list`, `status`, `watch` and `warm`.
@Suite(.serialized)
struct SecretURLTests {
    /// The password every URL of these tests carries: with a `'`, which an
    /// older masker took for the end of the URL (issue 23, V1).
    static let password = "s3cr'3t-pw-\(UUID().uuidString.prefix(8))"

    @Test func passwordsInJobURLsAreUsedForTheDownloadButNeverPublishedOrLogged() async throws {
        // Given an image on nginx (which ignores Authorization), one on the
        // fault origin (which logs request headers), a 404, and a non-http URL
        // — every one with a user and a password in it
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("secret-url", count: 2)
        let onNginx = try Self.withUserinfo(images[0].url)
        let faultID = TestEnvironment.uniqueName("secret")
        let onFaultOrigin = try Self.withUserinfo(FaultOrigin.url(file: images[1].path, ["id": faultID]))
        let missing = try Self.withUserinfo(Origin.missingURL())
        let notHTTP = "ftp://alice:\(Self.password)@127.0.0.1:1/a.jpg"
        let malformed = "http:/alice:\(Self.password)@127.0.0.1:1/b.jpg"

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 2) { workers in
            // When they are enqueued (the non-http one through the intake
            // list, as `warmer enqueue` refuses it) and followed by `watch`
            let batch = try await queue.enqueue([onNginx, onFaultOrigin, missing])
            let watch = try CollectedProcess(["watch"] + queue.redisArguments + ["--batch", batch, "--json"])
            let document = #"{"v":1,"batch":"\#(batch)-doc","urls":["\#(notHTTP)"]}"#
            let pushed = try await redisCLI(url: queue.redisURL, ["RPUSH", queue.queue.keys.intake, document])
            try #require(pushed.status == 0, "\(pushed)")
            let malformedDocument = #"{"v":1,"batch":"\#(batch)-bad","urls":["\#(malformed)"]}"#
            let pushedMalformed = try await redisCLI(url: queue.redisURL, ["RPUSH", queue.queue.keys.intake, malformedDocument])
            try #require(pushedMalformed.status == 0, "\(pushedMalformed)")
            let status = try await queue.waitUntilFinished(batch: batch)
            let documentStatus = try await queue.waitUntilFinished(batch: batch + "-doc")
            let malformedStatus = try await queue.waitUntilFinished(batch: batch + "-bad")

            // Then the downloads worked (the origin got the credentials as Basic auth)
            #expect(status.completed == 2 && status.failed == 1, "\(status)\n\(workers.logs)")
            #expect(documentStatus.dead == 1, "\(documentStatus)")
            #expect((try? Data(contentsOf: cachedFile(for: onNginx, in: cache))) == (try images[0].contents()))
            let expectedAuthorization = "Basic " + Data("alice:\(Self.password)".utf8).base64EncodedString()
            let authorized = await eventually {
                (try? FaultOrigin.requests(id: faultID))?.contains { $0.headers["authorization"] == expectedAuthorization } == true
            }
            #expect(authorized, "the fault origin never got the URL's credentials as Basic auth")

            // …and no event, log line or command output holds the password
            let events = try await queue.queueEvents()
            let eventText = events.map(\.jsonLine).joined(separator: "\n")
            #expect(!eventText.contains(Self.password), "an event holds the password:\n\(eventText)")
            let masked = events.filter { $0.kind == .started }.compactMap(\.url)
            #expect(masked.count == 5 && masked.allSatisfy { $0.contains(":/alice:***@127.0.0.1") || $0.contains("://alice:***@127.0.0.1") },
                    "\(masked)")
            let failure = try #require(events.first { $0.kind == .failed })
            #expect(failure.fields["error"] == "http_404", "\(failure.summary)")
            let dead = try #require(events.first { $0.kind == .deadLettered }, "\(events.summary)")
            #expect(dead.fields["message"]?.contains("ftp://alice:***@127.0.0.1:1/a.jpg") == true, "\(dead.fields)")
            #expect(malformedStatus.dead == 1, "\(malformedStatus)")
            let deadMessages = events.filter { $0.kind == .deadLettered }.compactMap { $0.fields["message"] }
            #expect(deadMessages.contains { $0.contains("http:/alice:***@127.0.0.1:1/b.jpg") }, "\(deadMessages)")

            let watched = try #require(await watch.waitForExit(timeout: .seconds(30)), "watch did not exit")
            let outputs = [
                ("watch", watched),
                ("dead list", try await warmer(["dead", "list"] + queue.redisArguments)),
                ("dead list --json", try await warmer(["dead", "list", "--json"] + queue.redisArguments)),
                ("status", try await warmer(["status", batch] + queue.redisArguments)),
                ("status (queue)", try await warmer(["status"] + queue.redisArguments)),
            ]
            for (name, result) in outputs {
                #expect(!result.standardOutput.contains(Self.password) && !result.standardError.contains(Self.password),
                        "\(name) shows the password:\n\(result)")
            }
            let deadList = outputs[1].1
            #expect(deadList.status == 0 && deadList.standardOutput.contains("alice:***@"), "\(deadList)")
            #expect(deadList.standardOutput.contains("http_404") && deadList.standardOutput.contains("invalid_url"), "\(deadList)")
            for worker in workers {
                #expect(!worker.log.contains(Self.password), "the worker logged the password:\n\(worker.log)")
            }
        }
    }

    @Test func warmPrintsURLsWithTheirPasswordMasked() async throws {
        // Given an image on the origin, asked for with a user and password
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("secret-warm", count: 1)[0]
        let url = try Self.withUserinfo(image.url)
        let missing = try Self.withUserinfo(Origin.missingURL())

        // When `warmer warm` warms it, and a 404 beside it
        let result = try await WarmerProcess.run(["warm", "--cache-dir", cache.path, "-"],
                                                 stdin: url.absoluteString + "\n" + missing.absoluteString + "\n")

        // Then it downloads, and neither its output nor its errors show the password
        #expect(result.status == 1, "\(result)")
        #expect(result.standardOutput.contains("ok network") && result.standardOutput.contains("alice:***@"), "\(result)")
        #expect(result.standardError.contains("http_404"), "\(result)")
        #expect(!result.standardOutput.contains(Self.password) && !result.standardError.contains(Self.password), "\(result)")
    }

    /// `url` with `alice:PASSWORD@` in front of its host.
    static func withUserinfo(_ url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.user = "alice"
        components.password = password
        return try #require(components.url)
    }
}
