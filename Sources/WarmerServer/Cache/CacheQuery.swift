import Foundation
import Hummingbird
import PipelineEngine
import WarmerInput
import WarmerWorker

/// What `GET /v1/cache` asks for: the URL as enqueued, the processing spec of
/// a processed variant (none for the original data), whether a miss is
/// warmed here, and the cache key they give (`CacheKey`, as `warmer cache get`).
struct CacheQuery: Sendable {
    /// The most bytes a URL may have (the intake documents' limit).
    static let maxURLLength = 8192

    /// The URL, exactly as given.
    let text: String
    /// The URL, parsed: absolute http(s) with a host.
    let url: URL
    /// The processing of the variant; `nil` for the original data.
    let processing: ProcessingSpec?
    /// Whether a miss is loaded here (`warm=1`).
    let warm: Bool
    /// The pipeline request that loads the image on a miss (`warm=1`).
    let imageRequest: ImageRequest
    /// The disk cache key: the key `imageRequest` stores under, so that what
    /// `warm=1` stores is what the read finds (`CacheKey`).
    let key: String

    /// Reads and checks the query of `request`, its processing spec by `rules`.
    /// - Throws: a 400 `Problem` naming what is wrong.
    init(_ request: Request, rules: ProcessingRules) throws {
        let parameters = request.uri.queryParameters
        guard let text = parameters["url"].map(String.init), !text.isEmpty else {
            throw Problem.badRequest("url is required: the image URL exactly as enqueued, percent-encoded")
        }
        guard text.utf8.count <= Self.maxURLLength else {
            throw Problem.badRequest("url is longer than \(Self.maxURLLength) bytes")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            throw Problem.badRequest("url must be an absolute http or https URL")
        }
        var processing: ProcessingSpec?
        if let spec = parameters["processing"].map(String.init) {
            do {
                processing = try rules.spec(spec)
            } catch {
                throw Problem.badRequest("processing: \(error.description)")
            }
        }
        switch parameters["warm"] {
        case nil, "0"?: warm = false
        case "1"?: warm = true
        default: throw Problem.badRequest("warm must be 0 or 1")
        }
        self.text = text
        self.url = url
        self.processing = processing
        imageRequest = CacheKey.request(for: url, processing: processing)
        key = CacheKey.of(imageRequest)
    }
}
