import Foundation
import PipelineEngine
import TestSupport

/// A decoder (`ImageDecoding`) that logs each decode and can hold them at a
/// gate. Every decode returns the same small image, made once by the real
/// decoder from a 1×1 PNG held in memory: a `DecodedImage` is libvips
/// pixels, and no test of the graph looks at them.
public final class FakeImageDecoder: ImageDecoding {
    /// One logged decode: how many bytes, and the thumbnail asked for.
    public struct Call: Sendable {
        /// The size of the data decoded.
        public let byteCount: Int
        /// The thumbnail asked for, if any.
        public let thumbnail: ThumbnailOptions?
    }

    /// Every decode that began, in order.
    public let decodes = CallLog<Call>()
    /// Decodes wait here; open unless the test closes it with `holding`.
    public let gate: Gate
    private let image: DecodedImage

    /// A decoder; with `holding`, every decode waits until `gate.open()`.
    public init(holding: Bool = false) throws {
        gate = Gate(open: !holding)
        image = try VipsDecoder().decode(FakeImages.onePixelPNG, thumbnail: nil, limits: ImageLimits(), budget: nil,
                                         shouldStop: { false })
    }

    /// See `ImageDecoding`.
    public func decode(
        _ data: Data, thumbnail: ThumbnailOptions?, limits: ImageLimits, budget: MemoryBudget?, shouldStop: () -> Bool
    ) throws(ImageProcessingError) -> DecodedImage {
        decodes.record(Call(byteCount: data.count, thumbnail: thumbnail))
        gate.pass()
        if data.starts(with: FakeImages.undecodable) { throw .unsupportedFormat(loader: "fake") }
        return image
    }
}
