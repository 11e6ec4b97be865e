import Foundation
import PipelineEngine
import TestSupport

/// An encoder (`ImageEncoding`) that logs each encode and returns the
/// encoding's identifier as the "encoded" bytes, so a test can tell from
/// the cache what was stored.
public final class FakeImageEncoder: ImageEncoding {
    /// The identifier of every encoding asked for, in order.
    public let encodes = CallLog<String>()

    /// An encoder.
    public init() {}

    /// See `ImageEncoding`.
    public func encode(_ image: DecodedImage, as encoding: OutputEncoding) throws(ImageProcessingError) -> Data {
        encodes.record(encoding.identifier)
        return Data("fake-\(encoding.identifier)".utf8)
    }
}
