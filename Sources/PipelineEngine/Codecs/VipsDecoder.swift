import Foundation

/// The default `ImageDecoding`: libvips through `ImageCodec` (shrink-on-load
/// thumbnails, format allow-list, pixel limits, memory budget).
public struct VipsDecoder: ImageDecoding {
    /// Creates the decoder.
    public init() {}

    /// See `ImageCodec.decode(_:thumbnail:limits:budget:shouldStop:)`.
    public func decode(
        _ data: Data, thumbnail: ThumbnailOptions?, limits: ImageLimits, budget: MemoryBudget?,
        shouldStop: () -> Bool
    ) throws(ImageProcessingError) -> DecodedImage {
        try ImageCodec.decode(data, thumbnail: thumbnail, limits: limits, budget: budget, shouldStop: shouldStop)
    }
}
