/// The default `ImageProcessing`: libvips through `ImageCodec`.
public struct VipsProcessor: ImageProcessing {
    /// Creates the processor.
    public init() {}

    /// See `ImageCodec.process(_:with:limits:budget:)`.
    public func process(
        _ image: DecodedImage, with processor: ImageProcessor, limits: ProcessingLimits, budget: MemoryBudget?
    ) throws(ImageProcessingError) -> DecodedImage {
        try ImageCodec.process(image, with: processor, limits: limits, budget: budget)
    }
}
