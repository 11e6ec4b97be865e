import Foundation
import Scheduler
import Testing
import TestSupport

/// Issue 10, finding 1: one malformed processing spec once killed every
/// worker that claimed it, and the good jobs claimed alongside it with it.
@Suite(.serialized)
struct MalformedSpecTests {
    @Test(arguments: ["=", "resize=,", "resize=,,"])
    func aMalformedSpecIsDeadLetteredAndTheJobsBesideItComplete(_ spec: String) async throws {
        // Given a batch of 7 good thumbnail jobs and, claimed with them, a job whose spec cannot be parsed
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let images = try await Origin.makeImages("spec-crash", count: 8)
        let bad = try await queue.queue.enqueue(urls: [images[0].url.absoluteString], destination: .processed, processing: spec)
        let good = try await queue.queue.enqueue(urls: images.dropFirst().map(\.url.absoluteString),
                                                 destination: .processed, processing: "thumbnail=64&format=webp")

        try await withWorkers(queue: queue, cacheDirectory: cache, concurrency: 8) { workers in
            // When one worker claims all eight at once
            let badStatus = try await queue.waitUntilFinished(batch: bad)
            let goodStatus = try await queue.waitUntilFinished(batch: good)

            // Then the bad job is dead-lettered at once as invalid_processing, with its reason
            #expect(badStatus.dead == 1 && badStatus.completed == 0, "\(badStatus)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: bad)
            let dead = try #require(events.first { $0.kind == .deadLettered }, "\(events.summary)")
            #expect(dead.fields["error"] == "invalid_processing")
            #expect(dead.fields["message"]?.contains("Invalid processing spec") == true, "\(dead.fields)")
            #expect(!events.contains { $0.kind == .stalled }, "the worker died on the spec: \(events.summary)")

            // …the seven good jobs complete
            #expect(goodStatus.completed == 7 && goodStatus.dead == 0, "\(goodStatus)\n\(workers.logs)")

            // …and the worker is still running
            #expect(workers[0].isRunning, "the worker exited:\n\(workers.logs)")
        }
    }

    @Test func aSpecWhoseOutputWouldBeTooLargeForTheImageIsDeadLetteredWhenItRuns() async throws {
        // Given a spec that parses, but would make a 160×120 image 10000×7500 (75 MP, over the 40 MP default)
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let image = try await Origin.makeImages("too-large-output", count: 1)[0]
        let batch = try await queue.queue.enqueue(urls: [image.url.absoluteString], destination: .processed,
                                                  processing: "resize=10000x0,upscale")

        try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            // When a worker runs it
            let status = try await queue.waitUntilFinished(batch: batch)

            // Then it is dead-lettered as invalid_processing, naming the size, and never retried
            #expect(status.dead == 1, "\(status)\n\(workers.logs)")
            let events = try await queue.events(ofBatch: batch)
            let dead = try #require(events.first { $0.kind == .deadLettered }, "\(events.summary)")
            #expect(dead.fields["error"] == "invalid_processing")
            #expect(dead.fields["message"]?.contains("10000×7500") == true, "\(dead.fields)")
            #expect(!events.contains { $0.kind == .retrying })
        }
    }

    @Test(arguments: [["enqueue", "--destination", "processed", "--processing", "="],
                      ["cache", "path", "--processing", "resize=,", "http://127.0.0.1:9/a.jpg"],
                      ["enqueue", "--destination", "processed", "--resize", "30000x0,upscale"],
                      ["enqueue", "--destination", "processed", "--blur", "1000"]])
    func theCommandLineRefusesABadSpecWithAnError(_ arguments: [String]) async throws {
        // Given a URL file, for the enqueue forms
        let queue = try QueueProbe()
        let folder = try TestEnvironment.temporaryDirectory("urls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("urls.txt")
        try Data("http://127.0.0.1:9/a.jpg\n".utf8).write(to: file)
        let command = arguments[0] == "enqueue" ? arguments + queue.redisArguments + [file.path] : arguments

        // When the command runs with a spec that is malformed or beyond the limits
        let result = try await warmer(command)

        // Then it exits with a usage error naming the problem, not a crash
        #expect(result.exited && result.status == 64, "\(result)")
        #expect(result.standardError.contains("Invalid processing spec"), "\(result)")
        #expect(try await queue.send(["ZCARD", queue.queue.keys.queue]).integer == 0)
    }
}
