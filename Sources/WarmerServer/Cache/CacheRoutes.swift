import Foundation
import Hummingbird
import PipelineEngine

/// `GET /v1/cache?url=…[&processing=…][&warm=1]` (and `HEAD`): a warmed
/// image's bytes from this process's cache folder, found by the key
/// `warmer cache get` uses (`CacheKey`); with `warm=1` a miss is loaded
/// here first (`CacheWarmer`). docs/http-api.md, "Cached images: GET /v1/cache".
package struct CacheRoutes: Sendable {
    /// Opens entries and knows their tags.
    let reader: CacheReader
    /// Loads misses for `warm=1`.
    let warmer: CacheWarmer
    /// The `Cache-Control` of an image answer.
    let cacheControl: String
    /// How a `processing` parameter is checked (shared with `BatchRoutes`).
    let processingRules: ProcessingRules

    func add(to router: Router<ServerContext>) {
        router.get("v1/cache") { request, _ in
            try await answer(request)
        }
        // (The router makes no HEAD route from a GET one by itself.)
        router.head("v1/cache") { request, _ in
            try await answer(request)
        }
    }

    /// The answer to one request.
    func answer(_ request: Request) async throws -> Response {
        let query = try CacheQuery(request, rules: processingRules)
        var entry = try await reader.entry(for: query.key)
        if entry == nil, query.warm {
            try await warmer.warm(query)
            entry = try await reader.entry(for: query.key)
        }
        guard let entry else { throw Problem.notCached(query.text) }
        return try CacheResponse.answer(request, entry: entry, cacheControl: cacheControl)
    }
}

extension CacheRoutes {
    /// How long a client or proxy may reuse an answer without asking again.
    static let maxAge = 3600

    /// The routes over `dataCache`, loading `warm=1` misses with `pipeline`
    /// (whose disk cache is `dataCache`), at most `concurrency` at once, each
    /// within `timeLimit`. With `isPublic` false (the server has tokens),
    /// answers are marked `private`, so shared caches never hand the bytes
    /// to callers without one.
    package init(pipeline: ImagePipeline, dataCache: DataCache, timeLimit: Duration, concurrency: Int, isPublic: Bool) {
        processingRules = ProcessingRules(limits: pipeline.configuration.processingLimits)
        reader = CacheReader(dataCache: dataCache)
        warmer = CacheWarmer(pipeline: pipeline, timeLimit: timeLimit, concurrency: concurrency,
                             maxWaiting: max(64, 16 * concurrency))
        cacheControl = "\(isPublic ? "public" : "private"), max-age=\(Self.maxAge)"
    }
}
