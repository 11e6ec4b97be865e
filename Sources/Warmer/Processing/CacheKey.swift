import Foundation
import PipelineEngine
import WarmerInput

/// The disk cache key of a URL (docs/cache-layout.md): the URL itself for its
/// original data, or with a processing spec the key of the encoded variant
/// that spec describes. `warmer cache path|get` and `GET /v1/cache` both find
/// entries through it, so they always agree.
enum CacheKey {
    /// The key of `url`'s original data (`processing` nil) or of its variant.
    static func of(_ url: String, processing: ProcessingSpec?) -> String {
        guard let processing, let parsed = URL(string: url) else { return url }
        var request = ImageRequest(url: parsed)
        processing.apply(to: &request)
        return request.processedDataCacheKey
    }
}
