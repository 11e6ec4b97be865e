import CCurl

/// One-time process-wide libcurl initialisation.
///
/// `curl_global_init` is not thread-safe and must run once before any other
/// libcurl call; a `static let` gives exactly-once semantics.
enum CurlRuntime {
    private static let initialisation: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    /// Initialises libcurl if that has not happened yet.
    static func ensureInitialised() {
        _ = initialisation
    }

    /// A readable description of a libcurl result code.
    static func describe(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
