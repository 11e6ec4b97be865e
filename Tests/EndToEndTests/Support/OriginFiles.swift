import Foundation
import PipelineEngine
import Synchronization
import TestSupport

/// An image a test put on the origin: its file there and its URL.
struct OriginImage: Sendable {
    let file: URL
    let url: URL

    /// The origin's bytes.
    func contents() throws -> Data { try Data(contentsOf: file) }
    /// The path `Origin.requestCount(path:slow:)` takes.
    var path: String { file.lastPathComponent }
}

extension Origin {
    /// Generates `count` JPEGs with unique names and returns them with their
    /// URLs (through the 100 KB/s location when `slow`).
    ///
    /// `makeImage` encodes with libvips synchronously; this runs it on a thread
    /// of its own so that the other tests' polling keeps running meanwhile.
    static func makeImages(
        _ label: String, count: Int, width: Int = 160, height: Int = 120, slow: Bool = false
    ) async throws -> [OriginImage] {
        let prefix = TestEnvironment.uniqueName(label)
        return try await offCooperativePool {
            let made = Mutex<[Int: Result<OriginImage, any Error>]>([:])
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let image = Result {
                    let file = try makeImage("\(prefix)-\(index)", width: width, height: height)
                    return OriginImage(file: file, url: try url(of: file, slow: slow))
                }
                made.withLock { $0[index] = image }
            }
            return try made.withLock { made in try (0..<count).map { try made[$0]!.get() } }
        }
    }

    /// A URL on the origin that answers 404.
    static func missingURL() throws -> URL {
        try url(path: TestEnvironment.uniqueName("missing") + ".jpg")
    }
}

/// Where `DataCache` keeps `url`'s data under `directory` (docs/cache-layout.md):
/// the hex SHA-256 of the URL string, in its `ab/cd/` shard. Computed without
/// opening a `DataCache`, whose periodic sweep the test process has no
/// business running.
func cachedFile(for url: URL, in directory: URL) -> URL {
    URL(fileURLWithPath: CacheFolderFiles.shardedPath(url.absoluteString, in: directory))
}

/// Runs blocking work on a dedicated thread and waits for it without holding
/// a thread of Swift's cooperative pool (which has one thread per core).
func offCooperativePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
