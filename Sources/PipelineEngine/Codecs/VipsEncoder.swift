import Foundation

/// The default `ImageEncoding`: libvips through `ImageCodec` (JPEG
/// flattens alpha onto white; metadata is stripped).
public struct VipsEncoder: ImageEncoding {
    /// Creates the encoder.
    public init() {}

    /// See `ImageCodec.encode(_:as:)`.
    public func encode(_ image: DecodedImage, as encoding: OutputEncoding) throws(ImageProcessingError) -> Data {
        try ImageCodec.encode(image, as: encoding)
    }
}
