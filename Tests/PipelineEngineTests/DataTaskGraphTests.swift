import Foundation
import PipelineEngineFakes
import Testing
import TestSupport
@testable import PipelineEngine

/// The data level of the task graph over the in-memory fakes: downloads
/// shared by URL, and what cancelling does to them and to the task's events.
@Suite("Data task graph")
struct DataTaskGraphTests {
    @Test func identicalDataRequestsShareOneDownload() async throws {
        let graph = try FakeGraph()
        let url = graph.image("shared")
        graph.loader.hold(url)
        let tasks = (0..<2).map { _ in graph.pipeline.loadData(for: ImageRequest(url: url)) }
        await graph.loader.loads.wait(for: 1)
        graph.loader.release(url)
        let responses = try await tasks.asyncMap { try await $0.response }
        #expect(graph.loader.loadCount(of: url) == 1)
        #expect(responses.allSatisfy { $0.source == .network && $0.data == FakeImages.body("shared") })
    }

    @Test func withoutCoalescingEveryDataRequestDownloads() async throws {
        let graph = try FakeGraph { $0.isTaskCoalescingEnabled = false }
        let url = graph.image("unshared")
        graph.loader.hold(url)
        let tasks = (0..<2).map { _ in graph.pipeline.loadData(for: ImageRequest(url: url)) }
        await graph.loader.loads.wait(for: 2)
        graph.loader.release(url)
        _ = try await tasks.asyncMap { try await $0.response }
        #expect(graph.loader.loadCount(of: url) == 2)
    }

    @Test func cancellingOneOfTwoCoalescedDataTasksLetsTheOtherFinish() async throws {
        let graph = try FakeGraph()
        let url = graph.image("cancel-one")
        graph.loader.hold(url)
        let kept = graph.pipeline.loadData(for: ImageRequest(url: url))
        let cancelled = graph.pipeline.loadData(for: ImageRequest(url: url))
        await graph.loader.loads.wait(for: 1)
        cancelled.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await cancelled.response }
        graph.loader.release(url)
        #expect(try await kept.response.data == FakeImages.body("cancel-one"))
        #expect(graph.loader.loadCount(of: url) == 1 && graph.loader.cancelledLoads.calls.isEmpty)
    }

    @Test func cancellingEveryDataTaskCancelsTheDownloadAndStoresNothing() async throws {
        let graph = try FakeGraph()
        let url = graph.image("cancel-all")
        graph.loader.hold(url)
        let tasks = (0..<2).map { _ in graph.pipeline.loadData(for: ImageRequest(url: url)) }
        await graph.loader.loads.wait(for: 1)
        #expect(graph.pipeline.activeDataFetchCount == 1)
        tasks.forEach { $0.cancel() }
        for task in tasks { await #expect(throws: ImagePipelineError.cancelled) { try await task.response } }
        await graph.loader.cancelledLoads.wait(for: 1)
        #expect(await eventually { graph.pipeline.activeDataFetchCount == 0 })
        #expect(graph.cache.writes.calls.isEmpty)
    }

    @Test func aCancelledTaskEndsWithACancelledEvent() async throws {
        let graph = try FakeGraph()
        let url = graph.image("event-cancel")
        graph.loader.hold(url)
        let task = graph.pipeline.loadData(for: ImageRequest(url: url))
        let events = Task {
            var kinds: [String] = []
            for await event in task.events {
                switch event {
                case .started: kinds.append("started")
                case .cancelled: kinds.append("cancelled")
                default: kinds.append("other")
                }
            }
            return kinds
        }
        await graph.loader.loads.wait(for: 1)
        task.cancel()
        #expect(await events.value == ["started", "cancelled"])
    }
}
