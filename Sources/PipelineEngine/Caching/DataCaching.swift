import Foundation

/// The disk cache as the pipeline uses it: its seam to storage, after
/// Nuke's `DataCaching`, widened by what a server cache keeps beside the
/// data (HTTP metadata, partial downloads) and by files read where they lie.
///
/// `DataCache` (files in one folder, shared by processes) is the default.
/// Entries are found by key; `url(for:)` names where an entry's data lives,
/// and `contents(ofFileAt:)` / `size(ofFileAt:)` read it by that name, so
/// the graph can pass a location around and read it only where the bytes
/// are needed. Tests give the pipeline an in-memory cache
/// (Tests/PipelineEngineFakes).
public protocol DataCaching: Sendable {
    /// Where `key`'s data lives (or would live).
    func url(for key: String) -> URL
    /// The data stored for `key`, or `nil`. Counts as an access.
    func cachedData(for key: String) -> Data?
    /// Whether `key` has data, without reading it. Counts as an access.
    func containsData(for key: String) -> Bool
    /// The size in bytes of `key`'s data, or `nil` when absent.
    func sizeOfData(for key: String) -> Int?
    /// The contents of the data at `url` (as `url(for:)` named it), or `nil`.
    func contents(ofFileAt url: URL) -> Data?
    /// The size of the data at `url`, or `nil` when absent.
    func size(ofFileAt url: URL) -> Int?
    /// The metadata stored beside `key`'s data (HTTP cache mode), or `nil`.
    func metadata(for key: String) -> Data?

    /// Stores `data` for `key` without waiting (reads see it at once),
    /// replacing its metadata with `metadata`.
    func storeData(_ data: Data, for key: String, metadata: Data?)
    /// Stores `data` for `key` and returns once it is in place, replacing
    /// its metadata with `metadata`.
    /// - Returns: where the data lives (`url(for: key)`).
    func write(_ data: Data, for key: String, metadata: Data?) async throws -> URL
    /// Replaces the metadata of `key`'s entry, without waiting.
    func storeMetadata(_ metadata: Data, for key: String)
    /// Removes `key`'s data, its metadata and any partial download.
    func removeData(for key: String)
    /// Removes every entry.
    func removeAll()

    /// The start of an interrupted download of `key`, kept to resume it, or `nil`.
    func partialData(for key: String) -> Data?
    /// Keeps the start of an interrupted download of `key`. Returns once kept.
    func writePartialData(_ data: Data, for key: String) async throws
    /// Forgets the interrupted download of `key`.
    func removePartialData(for key: String)
}

extension DataCaching {
    /// Stores `data` for `key` without waiting, with no metadata.
    public func storeData(_ data: Data, for key: String) {
        storeData(data, for: key, metadata: nil)
    }

    /// Stores `data` for `key` with no metadata and returns once it is in place.
    @discardableResult
    public func write(_ data: Data, for key: String) async throws -> URL {
        try await write(data, for: key, metadata: nil)
    }
}
