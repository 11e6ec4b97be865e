import Foundation

/// Encodes a decoded image: the encoding stage's seam, after Nuke's
/// `ImageEncoding`.
///
/// `VipsEncoder` (libvips) is the default. What to produce is the
/// request's `OutputEncoding` (format and quality). It runs on an
/// encoding-queue thread and may encode one image from several threads at once.
public protocol ImageEncoding: Sendable {
    /// The bytes of `image` encoded as `encoding` says.
    /// - Throws: `ImageProcessingError.encodingFailed`.
    func encode(_ image: DecodedImage, as encoding: OutputEncoding) throws(ImageProcessingError) -> Data
}
