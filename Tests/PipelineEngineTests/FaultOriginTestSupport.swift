import Foundation
import Testing
import TestSupport
@testable import PipelineEngine

/// Shared helpers of the suites that run the pipeline against the fault
/// origin (`scripts/fault-origin.py`): HTTP cache mode, resumable downloads,
/// retries, loader limits and the rate limiter.

extension ImagePipeline.Configuration {
    /// A pipeline configuration for the fault origin: the loopback-allowing
    /// loader, the given cache, and retries with short backoffs (so tests stay fast).
    static func faultOrigin(
        dataCache: DataCache?, mode: DataCacheMode = .aggressive, maximumAttempts: Int = 4,
        loader: DataLoader = .testOrigin
    ) -> Self {
        var configuration = ImagePipeline.Configuration(dataLoader: loader, dataCache: dataCache)
        configuration.dataCacheMode = mode
        configuration.retryPolicy.maximumAttempts = maximumAttempts
        configuration.retryPolicy.initialDelay = .milliseconds(20)
        configuration.retryPolicy.maximumDelay = .milliseconds(100)
        return configuration
    }
}

extension DataCache {
    /// The names of the files in the cache's folder and its shard folders
    /// (after pending writes), sorted; folders are not listed.
    func fileNames() -> [String] {
        flush()
        var names: [String] = []
        let walk = FileManager.default.enumerator(atPath: directory.path)
        while let path = walk?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.path + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                names.append(URL(fileURLWithPath: path).lastPathComponent)
            }
        }
        return names.sorted()
    }
}

extension ImageTask {
    /// Every event of the task, once it has finished (the stream buffers them).
    func allEvents() async -> [Event] {
        _ = await result
        var collected: [Event] = []
        for await event in events { collected.append(event) }
        return collected
    }

    /// The (completed, total) of every progress event, once the task has finished.
    func progress() async -> [(completed: Int64, total: Int64?)] {
        await allEvents().compactMap { event in
            if case .progress(let completed, let total) = event { return (completed, total) }
            return nil
        }
    }

    /// The retries the task reported, once it has finished.
    func retries() async -> [DownloadRetry] {
        await allEvents().compactMap { event in
            if case .retrying(let retry) = event { return retry }
            return nil
        }
    }
}

extension ImagePipelineError {
    /// The loader's error, when the download failed.
    var loaderError: DataLoaderError? {
        if case .dataLoadingFailed(let error) = self { return error }
        return nil
    }
}

extension Result {
    /// The failure, if any.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

enum FaultLog {
    /// The fault origin's requests for `id`, once at least `count` are
    /// logged (the log may lag a moment behind the responses).
    static func requests(id: String, atLeast count: Int) async throws -> [FaultOrigin.Request] {
        let found = try await eventuallyValue(timeout: .seconds(10)) {
            let requests = try FaultOrigin.requests(id: id)
            return requests.count >= count ? requests : nil
        }
        return try found ?? FaultOrigin.requests(id: id)
    }

    /// The fault origin's requests for `/files/NAME`, once at least `count` are logged.
    static func requests(file: String, atLeast count: Int) async throws -> [FaultOrigin.Request] {
        let found = try await eventuallyValue(timeout: .seconds(10)) {
            let requests = try FaultOrigin.requests(file: file)
            return requests.count >= count ? requests : nil
        }
        return try found ?? FaultOrigin.requests(file: file)
    }

    /// `url` with `id=ID` added to its query (for routes `FaultOrigin` builds
    /// without options, such as `/redirect`), so its requests can be found.
    static func tagging(_ url: URL, id: String) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.percentEncodedQuery = (components.percentEncodedQuery.map { $0 + "&" } ?? "") + "id=" + id
        return try #require(components.url)
    }
}

/// The file of the origin's folder named `name`.
func originFile(_ name: String) throws -> URL {
    try TestEnvironment.originRoot().appendingPathComponent(name)
}

/// A copy of the origin's file `name` under a new unique name, last
/// modified a day ago (so its Last-Modified is a strong validator and gives
/// a heuristic freshness of hours). Returns the new name and its bytes.
func oldCopy(of name: String, label: String) throws -> (name: String, bytes: Data) {
    let bytes = try Data(contentsOf: originFile(name))
    let copy = TestEnvironment.uniqueName(label) + "." + (name.split(separator: ".").last.map(String.init) ?? "jpg")
    let file = try Origin.makeFile(copy, contents: bytes)
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: file.path)
    return (copy, bytes)
}

/// The inode of a file: unchanged while the file is not replaced (writes are atomic renames).
func inode(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require((attributes[.systemFileNumber] as? NSNumber)?.intValue)
}
