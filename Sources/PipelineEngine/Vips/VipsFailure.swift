/// A libvips step failed, or was asked something impossible; `message` says
/// why (libvips' error text, already cleared from its buffer, for a failed call).
/// `ImageCodec` turns it into the `ImageProcessingError` of its stage.
struct VipsFailure: Error, Sendable {
    /// Why the step failed.
    let message: String
}
