import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// Cancellation in the task graph (Nuke's: work stops only where nobody
/// else needs it), over the in-memory fakes.
@Suite("Task graph cancellation")
struct TaskGraphCancellationTests {
    @Test func cancellingOneOfTwoCoalescedImageTasksLetsTheOtherFinish() async throws {
        let graph = try FakeGraph()
        let url = graph.image("cancel-one")
        graph.loader.hold(url)
        let request = ImageRequest(url: url, processors: [FakeGraph.resize1])
        let kept = graph.pipeline.loadImage(for: request)
        let cancelled = graph.pipeline.loadImage(for: request)
        await graph.loader.loads.wait(for: 1)
        // When
        cancelled.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await cancelled.response }
        graph.loader.release(url)
        // Then
        #expect(try await kept.response.image != nil)
        #expect(graph.loader.loadCount(of: url) == 1)
        #expect(graph.loader.cancelledLoads.calls.isEmpty)
    }

    @Test func cancellingEveryImageTaskCancelsTheDownload() async throws {
        let graph = try FakeGraph()
        let url = graph.image("cancel-all")
        graph.loader.hold(url)
        let tasks = [[FakeGraph.resize1], [FakeGraph.blur2]].map {
            graph.pipeline.loadImage(for: ImageRequest(url: url, processors: $0))
        }
        await graph.loader.loads.wait(for: 1)
        // When
        tasks.forEach { $0.cancel() }
        // Then the held load is cancelled, nothing is decoded, no task is left.
        await graph.loader.cancelledLoads.wait(for: 1)
        for task in tasks { await #expect(throws: ImagePipelineError.cancelled) { try await task.response } }
        #expect(await eventually { graph.pipeline.activeDataFetchCount == 0 })
        #expect(graph.decoder.decodes.calls.isEmpty)
        #expect(!graph.cache.containsData(for: url.absoluteString))
    }

    @Test func cancellingATaskWaitingForADecodeSlotTakesItOutOfTheQueue() async throws {
        // Given one decode slot, held by a decode at the gate
        let graph = try FakeGraph(holdingDecodes: true) { $0.concurrency.decoding = 1 }
        let first = graph.pipeline.loadImage(for: ImageRequest(url: graph.image("first")))
        await graph.decoder.decodes.wait(for: 1)
        let second = graph.pipeline.loadImage(for: ImageRequest(url: graph.image("second")))
        #expect(await eventually { graph.pipeline.queues.decoding.waitingCount == 1 })
        // When the waiting one is cancelled, then the gate opens
        second.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await second.response }
        graph.decoder.gate.open()
        _ = try await first.response
        // Then only the first was decoded
        #expect(graph.decoder.decodes.calls.count == 1)
        #expect(graph.pipeline.queues.decoding.waitingCount == 0)
    }

    @Test func aFailedDownloadFailsEverySubscriberAndLeavesNoTask() async throws {
        let graph = try FakeGraph()
        let missing = URL(string: "http://127.0.0.1:9/fake/missing.png")!
        graph.loader.hold(missing)
        let tasks = [[], [FakeGraph.resize1]].map { graph.pipeline.loadImage(for: ImageRequest(url: missing, processors: $0)) }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(missing)
        for task in tasks {
            await #expect(throws: ImagePipelineError.dataLoadingFailed(.httpStatus(404))) { try await task.response }
        }
        #expect(graph.loader.loadCount(of: missing) == 1)
        #expect(await eventually { graph.pipeline.activeDataFetchCount == 0 })
    }

    @Test func anUndecodableBodyFailsEveryCoalescedRequestWithOneDecode() async throws {
        let graph = try FakeGraph()
        let url = URL(string: "http://127.0.0.1:9/fake/broken.png")!
        graph.loader.serve(url, body: FakeImages.undecodable)
        graph.loader.hold(url)
        let tasks = (0..<3).map { _ in graph.pipeline.loadImage(for: ImageRequest(url: url)) }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        for task in tasks {
            await #expect(throws: ImagePipelineError.imageProcessingFailed(.unsupportedFormat(loader: "fake"))) {
                try await task.response
            }
        }
        #expect(graph.decoder.decodes.calls.count == 1)
    }
}
