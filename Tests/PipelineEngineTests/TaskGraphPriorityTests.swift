import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// Live priorities in the task graph (Nuke's: a task runs at its
/// subscribers' highest priority, and a change moves its waiting work),
/// over the in-memory fakes with one download slot held by a blocker.
@Suite("Task graph priorities")
struct TaskGraphPriorityTests {
    /// A graph with one download slot, taken by a held blocker.
    private static func graphWithOneSlotTaken() async throws -> (FakeGraph, blocker: URL, ImageTask) {
        let graph = try FakeGraph { $0.concurrency.dataLoading = 1 }
        let blocker = graph.image("blocker")
        graph.loader.hold(blocker)
        let blocking = graph.pipeline.loadData(for: ImageRequest(url: blocker, priority: .veryHigh))
        await graph.loader.loads.wait(for: 1)
        return (graph, blocker, blocking)
    }

    @Test func aWaitingDownloadIsRaisedWhenAHighPriorityRequestJoins() async throws {
        let (graph, blocker, blocking) = try await Self.graphWithOneSlotTaken()
        let low = graph.image("low"), normal = graph.image("normal")
        let lowTask = graph.pipeline.loadData(for: ImageRequest(url: low, priority: .veryLow))
        let normalTask = graph.pipeline.loadData(for: ImageRequest(url: normal, priority: .normal))
        #expect(await eventually { graph.pipeline.queues.dataLoading.waitingCount == 2 })
        // When a high-priority request for the low URL joins its waiting download
        let joined = graph.pipeline.loadData(for: ImageRequest(url: low, priority: .high))
        graph.loader.release(blocker)
        _ = try await [blocking, lowTask, normalTask, joined].asyncMap { try await $0.response }
        // Then the shared download ran before the normal one, once
        #expect(graph.loader.loads.calls == [blocker, low, normal])
    }

    @Test func changingATasksPriorityMovesItsWaitingDownload() async throws {
        let (graph, blocker, blocking) = try await Self.graphWithOneSlotTaken()
        let first = graph.image("first"), second = graph.image("second")
        let firstTask = graph.pipeline.loadData(for: ImageRequest(url: first, priority: .low))
        let secondTask = graph.pipeline.loadData(for: ImageRequest(url: second, priority: .low))
        #expect(await eventually { graph.pipeline.queues.dataLoading.waitingCount == 2 })
        // When
        secondTask.priority = .veryHigh
        graph.loader.release(blocker)
        _ = try await [blocking, firstTask, secondTask].asyncMap { try await $0.response }
        // Then
        #expect(graph.loader.loads.calls == [blocker, second, first])
    }

    @Test func cancellingTheHighPrioritySubscriberLowersTheSharedDownloadAgain() async throws {
        let (graph, blocker, blocking) = try await Self.graphWithOneSlotTaken()
        let shared = graph.image("shared"), normal = graph.image("normal")
        let lowTask = graph.pipeline.loadData(for: ImageRequest(url: shared, priority: .veryLow))
        let highTask = graph.pipeline.loadData(for: ImageRequest(url: shared, priority: .high))
        let normalTask = graph.pipeline.loadData(for: ImageRequest(url: normal, priority: .normal))
        #expect(await eventually { graph.pipeline.queues.dataLoading.waitingCount == 2 })
        // When the subscriber that raised it leaves
        highTask.cancel()
        graph.loader.release(blocker)
        _ = try await [blocking, lowTask, normalTask].asyncMap { try await $0.response }
        // Then the shared download went back to veryLow, after the normal one
        #expect(graph.loader.loads.calls == [blocker, normal, shared])
    }

    @Test func aProcessingStepRunsAtTheHighestPriorityOfItsSubscribers() async throws {
        // Given one processing slot, held by a step at the gate
        let graph = try FakeGraph(holdingSteps: true) { $0.concurrency.processing = 1 }
        let blocker = graph.pipeline.loadImage(for: ImageRequest(url: graph.image("blocker"), processors: [FakeGraph.circle3]))
        await graph.processor.steps.wait(for: 1)
        let lowURL = graph.image("low"), normalURL = graph.image("normal")
        let low = graph.pipeline.loadImage(for: ImageRequest(url: lowURL, processors: [FakeGraph.resize1], priority: .veryLow))
        let normal = graph.pipeline.loadImage(for: ImageRequest(url: normalURL, processors: [FakeGraph.blur2], priority: .normal))
        #expect(await eventually { graph.pipeline.queues.processing.waitingCount == 2 })
        // When a veryHigh request joins the low step
        let joined = graph.pipeline.loadImage(for: ImageRequest(url: lowURL, processors: [FakeGraph.resize1], priority: .veryHigh))
        graph.processor.gate.open()
        _ = try await [blocker, low, normal, joined].asyncMap { try await $0.response }
        // Then
        #expect(graph.processor.steps.calls == [FakeGraph.circle3, FakeGraph.resize1, FakeGraph.blur2].map(\.identifier))
    }
}
