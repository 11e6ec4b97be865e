import Foundation
import TestSupport
@testable import PipelineEngine

/// The caches and pipeline configurations the PipelineEngine suites build
/// again and again, written once: a test says what differs (a label, a
/// policy, an image cache), not how a test cache is made.

extension DataCache {
    /// A cache on `directory` with no periodic sweep during a test, so only
    /// the test decides what is trimmed (and when a flat folder is migrated).
    static func unswept(at directory: URL, sizeLimit: Int = 1 << 30) throws -> DataCache {
        try DataCache(directory: directory, sizeLimit: sizeLimit, sweepInterval: nil)
    }

    /// A fresh cache in its own temporary folder, with no periodic sweep.
    static func temporary(_ label: String) throws -> DataCache {
        try unswept(at: TestEnvironment.temporaryDirectory(label))
    }
}

extension ImagePipeline.Configuration {
    /// A pipeline configuration for the test origin (nginx on loopback): the
    /// loopback-allowing loader, the given caches and, when given, the data
    /// cache policy (otherwise the default, `.storeOriginalData`).
    static func testOrigin(
        dataCache: DataCache?, imageCache: ImageCache? = nil, policy: DataCachePolicy? = nil
    ) -> Self {
        var configuration = ImagePipeline.Configuration(dataLoader: DataLoader.testOrigin, dataCache: dataCache, imageCache: imageCache)
        if let policy { configuration.dataCachePolicy = policy }
        return configuration
    }
}
