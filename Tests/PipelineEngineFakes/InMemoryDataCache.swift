import Foundation
import PipelineEngine
import Synchronization
import TestSupport

/// A disk cache that keeps everything in memory (`DataCaching`): the
/// pipeline's storage seam without files. An entry's "file" is named
/// `/in-memory/<DataCache filename>`, so `url(for:)` and the reads by URL
/// agree as they do on disk. Every write is logged, by key.
public final class InMemoryDataCache: DataCaching {
    private struct State {
        var data: [String: Data] = [:]
        var metadata: [String: Data] = [:]
        var partial: [String: Data] = [:]
        var keysByFilename: [String: String] = [:]
    }

    private let state = Mutex(State())
    /// Every key data was written for, in order.
    public let writes = CallLog<String>()

    /// An empty cache.
    public init() {}

    /// The keys that hold data.
    public var keys: Set<String> { state.withLock { Set($0.data.keys) } }

    /// See `DataCaching`.
    public func url(for key: String) -> URL {
        let filename = DataCache.filename(for: key)
        state.withLock { $0.keysByFilename[filename] = key }
        return URL(fileURLWithPath: "/in-memory/" + filename)
    }

    /// See `DataCaching`.
    public func cachedData(for key: String) -> Data? { state.withLock { $0.data[key] } }
    /// See `DataCaching`.
    public func containsData(for key: String) -> Bool { cachedData(for: key) != nil }
    /// See `DataCaching`.
    public func sizeOfData(for key: String) -> Int? { cachedData(for: key)?.count }
    /// See `DataCaching`.
    public func metadata(for key: String) -> Data? { state.withLock { $0.metadata[key] } }

    /// See `DataCaching`.
    public func contents(ofFileAt url: URL) -> Data? {
        state.withLock { state in state.keysByFilename[url.lastPathComponent].flatMap { state.data[$0] } }
    }

    /// See `DataCaching`.
    public func size(ofFileAt url: URL) -> Int? { contents(ofFileAt: url)?.count }

    /// See `DataCaching`.
    public func storeData(_ data: Data, for key: String, metadata: Data?) {
        state.withLock { state in
            state.data[key] = data
            state.metadata[key] = metadata
            state.partial[key] = nil
        }
        writes.record(key)
    }

    /// See `DataCaching`.
    public func write(_ data: Data, for key: String, metadata: Data?) async throws -> URL {
        storeData(data, for: key, metadata: metadata)
        return url(for: key)
    }

    /// See `DataCaching`.
    public func storeMetadata(_ metadata: Data, for key: String) { state.withLock { $0.metadata[key] = metadata } }

    /// See `DataCaching`.
    public func removeData(for key: String) {
        state.withLock { state in
            state.data[key] = nil
            state.metadata[key] = nil
            state.partial[key] = nil
        }
    }

    /// See `DataCaching`.
    public func removeAll() { state.withLock { $0 = State() } }
    /// See `DataCaching`.
    public func partialData(for key: String) -> Data? { state.withLock { $0.partial[key] } }
    /// See `DataCaching`.
    public func writePartialData(_ data: Data, for key: String) async throws { state.withLock { $0.partial[key] = data } }
    /// See `DataCaching`.
    public func removePartialData(for key: String) { state.withLock { $0.partial[key] = nil } }
}
