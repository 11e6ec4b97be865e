import Foundation
import PipelineEngine
import WarmerInput

/// The disk cache key of a URL (docs/cache-layout.md): the URL as parsed
/// (`URL.absoluteString`, which percent-encodes what a URL cannot hold, such
/// as `\` or a space) for its original data, or with a processing spec the
/// key of the encoded variant that spec describes. It is the key the
/// pipeline stores under, for a worker and for `warm=1` alike, so `warmer
/// cache path|get` and `GET /v1/cache` always find what was stored.
package enum CacheKey {
    /// The key of `url`'s original data (`processing` nil) or of its variant.
    package static func of(_ url: String, processing: ProcessingSpec?) -> String {
        guard let parsed = URL(string: url) else { return url }
        return of(request(for: parsed, processing: processing))
    }

    /// The pipeline request that loads `url`'s original data or its variant.
    package static func request(for url: URL, processing: ProcessingSpec?) -> ImageRequest {
        var request = ImageRequest(url: url)
        processing?.apply(to: &request)
        return request
    }

    /// The key `request` stores under.
    package static func of(_ request: ImageRequest) -> String {
        request.processedDataCacheKey
    }
}
