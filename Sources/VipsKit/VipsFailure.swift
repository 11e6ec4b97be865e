/// A libvips step failed, or was asked something impossible; `message` says
/// why (libvips' error text, already cleared from its buffer, for a failed call).
/// `ImageCodec` (PipelineEngine) turns it into the error of its stage.
package struct VipsFailure: Error, Sendable {
    /// Why the step failed.
    package let message: String

    /// A failure explained by `message`.
    package init(message: String) {
        self.message = message
    }
}
