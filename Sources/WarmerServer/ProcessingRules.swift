import PipelineEngine
import WarmerInput

/// The one check of a processing spec that a request brings, whichever
/// route it comes to: `GET /v1/cache?processing=…` and a `processed` batch
/// posted to `POST …/batches` refuse exactly the same specs, those a worker
/// of the same settings would dead-letter as `invalid_processing` (the
/// syntax, at most 1,024 bytes and 8 steps, and the `max-output-side` and
/// `max-output-pixels` limits).
struct ProcessingRules: Sendable {
    /// The limits of the server's pipeline settings.
    let limits: ProcessingLimits

    /// The spec `text` describes.
    /// - Throws: the reason it is refused.
    func spec(_ text: String) throws(ProcessingSpecError) -> ProcessingSpec {
        try ProcessingSpec(parsing: text, limits: limits)
    }
}
