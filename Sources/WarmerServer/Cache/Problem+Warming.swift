import HTTPTypes

extension Problem {
    /// A load of `GET /v1/cache?warm=1` failed with the pipeline's (or the
    /// time limit's) error `code`, the same code a worker's `failed` event
    /// carries. The status says whose fault it is (docs/http-api.md).
    static func warmFailed(code: String, detail: String) -> Problem {
        let status: HTTPResponse.Status
        var headers: HTTPFields = [:]
        switch code {
        case "address_refused", "unsupported_scheme":
            status = .forbidden
        case "invalid_url":
            status = .badRequest
        case "body_too_large", "too_many_pixels", "not_an_image", "unsupported_format", "decoding_failed",
             "invalid_processing", "processing_failed", "encoding_failed":
            status = .unprocessableContent
        case "timed_out", "deadline_exceeded":
            status = .gatewayTimeout
        case "over_memory_budget", "libvips_unavailable", "cache_write_failed", "cancelled":
            status = .serviceUnavailable
            headers[.retryAfter] = "1"
        default: // http_NNN, transport, too_many_redirects: the origin's failure
            status = .badGateway
        }
        return Problem(code, status, "The image could not be warmed", detail: detail, headers: headers)
    }

    /// 503: `warm-concurrency` loads run and too many more wait.
    static let warmBusy = Problem(
        "warm_busy", .serviceUnavailable, "Too many images are being warmed",
        detail: "every warm slot is busy and the waiting list is full (warm-concurrency); try again",
        headers: [.retryAfter: "1"])

    /// 404: nothing is cached under the key, and `warm=1` was not asked.
    static func notCached(_ url: String) -> Problem {
        Problem("not_cached", .notFound, "The image is not cached",
                detail: "\(url) has no entry in this server's cache folder (add warm=1 to load it here)")
    }
}
