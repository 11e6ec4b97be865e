import PipelineEngine

/// Why `warmer warm` could not warm a URL: the pipeline's error, or its
/// time limit (`--job-timeout`).
struct WarmFailure: Error {
    /// A stable code, as in job events (`http_404`, `deadline_exceeded`…).
    let code: String
    /// A human-readable reason.
    let description: String

    init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    init(_ error: ImagePipelineError) {
        self.init(code: error.code, description: error.description)
    }
}
