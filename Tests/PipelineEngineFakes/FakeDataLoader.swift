import Foundation
import PipelineEngine
import Synchronization
import TestSupport

/// An in-memory origin for the pipeline (`DataLoading`): serves the bodies a
/// test registered, logs every load in the order it began, and can hold a
/// URL's loads until the test releases them — so coalescing, priorities
/// and cancellation are tested without a network and without timing.
///
/// A held load that is cancelled ends at once with `.cancelled` (as
/// `DataLoader` does when the calling task is cancelled) and is logged in
/// `cancelledLoads`. An unknown URL answers 404; `fail(_:status:)` sets another status.
public final class FakeDataLoader: DataLoading {
    private struct Resource {
        var body: Data
        var headers: [String: String]
        var statusCode = 200
    }

    private struct Waiter {
        let id: UUID
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var resources: [URL: Resource] = [:]
        var heldURLs: Set<URL> = []
        var holdsEveryURL = false
        var releasedURLs: Set<URL> = []
        var waiting: [URL: [Waiter]] = [:]
    }

    private let state = Mutex(State())
    /// Every load, by URL, in the order they began (after the pipeline's
    /// rate limiter and data-loading queue let them through).
    public let loads = CallLog<URL>()
    /// The loads that were cancelled while held.
    public let cancelledLoads = CallLog<URL>()
    /// See `DataLoading`.
    public let requestHeaders: [String: String] = ["User-Agent": "Warmer-Fake"]
    /// See `DataLoading`.
    public let maximumBodySize: Int64 = 64 << 20

    /// A loader serving nothing yet.
    public init() {}

    /// Serves `body` (with `headers`, names lowercased) for `url`.
    public func serve(_ url: URL, body: Data, headers: [String: String] = ["content-type": "image/png"]) {
        state.withLock { $0.resources[url] = Resource(body: body, headers: headers) }
    }

    /// Answers every load of `url` with the error status `statusCode` (a
    /// 503 is a transient failure, a 404 a permanent one).
    public func fail(_ url: URL, status statusCode: Int) {
        state.withLock { $0.resources[url] = Resource(body: Data(), headers: [:], statusCode: statusCode) }
    }

    /// Holds every load of `url` until `release(_:)` (nil: of every URL, until `releaseAll()`).
    public func hold(_ url: URL? = nil) {
        state.withLock { state in
            if let url {
                state.heldURLs.insert(url)
                state.releasedURLs.remove(url)
            } else {
                state.holdsEveryURL = true
            }
        }
    }

    /// Lets the held loads of `url` finish, and the later ones run through.
    public func release(_ url: URL) {
        let waiting = state.withLock { state in
            state.heldURLs.remove(url)
            state.releasedURLs.insert(url)
            return state.waiting.removeValue(forKey: url) ?? []
        }
        waiting.forEach { $0.continuation.resume() }
    }

    /// Stops holding any URL and lets every held load finish.
    public func releaseAll() {
        let waiting = state.withLock { state in
            state.heldURLs.removeAll()
            state.holdsEveryURL = false
            defer { state.waiting.removeAll() }
            return state.waiting.values.flatMap { $0 }
        }
        waiting.forEach { $0.continuation.resume() }
    }

    /// How many loads of `url` began.
    public func loadCount(of url: URL) -> Int {
        loads.calls.filter { $0 == url }.count
    }

    /// See `DataLoading`.
    public func load(
        from url: URL, headers: [String: String],
        progress: @escaping @Sendable (_ statusCode: Int, _ completed: Int64, _ total: Int64?) -> Void
    ) async -> Result<DataLoader.Response, DataLoaderFailure> {
        loads.record(url)
        await waitWhileHeld(url)
        if Task.isCancelled {
            cancelledLoads.record(url)
            return .failure(DataLoaderFailure(.cancelled, partialResponse: nil))
        }
        guard let resource = state.withLock({ $0.resources[url] }) else {
            let notFound = DataLoader.Response(data: Data(), statusCode: 404, headers: [:], url: url.absoluteString)
            return .failure(DataLoaderFailure(.httpStatus(404), partialResponse: notFound))
        }
        guard resource.statusCode == 200 else {
            let response = DataLoader.Response(data: Data(), statusCode: resource.statusCode, headers: [:], url: url.absoluteString)
            return .failure(DataLoaderFailure(.httpStatus(resource.statusCode), partialResponse: response))
        }
        let size = Int64(resource.body.count)
        progress(200, size, size)
        return .success(DataLoader.Response(data: resource.body, statusCode: 200, headers: resource.headers, url: url.absoluteString))
    }

    /// Returns when `url` is not held, or at once when the calling task is cancelled.
    private func waitWhileHeld(_ url: URL) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Task.isCancelled is set before `onCancel` runs: checked under
                // the lock, a cancel either comes first (no wait) or finds the waiter.
                let mustWait = state.withLock { state in
                    guard state.heldURLs.contains(url) || (state.holdsEveryURL && !state.releasedURLs.contains(url)),
                      !Task.isCancelled else { return false }
                    state.waiting[url, default: []].append(Waiter(id: id, continuation: continuation))
                    return true
                }
                if !mustWait { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting[url]?.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting[url]?.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
