/// Applies one processing step to a decoded image: the processing stage's
/// seam, after Nuke's `ImageProcessing`.
///
/// `VipsProcessor` (libvips) is the default. The step itself is a value
/// (`ImageProcessor`: resize, blur, circle…) whose identifier is part of
/// cache keys; this type does the work. It runs on a processing-queue
/// thread, never modifies its input, and may run on one image from several
/// threads at once.
public protocol ImageProcessing: Sendable {
    /// `image` with `processor` applied, within `limits`, the result charged to `budget`.
    /// - Throws: `ImageProcessingError` (`invalidProcessing`, `processingFailed`…).
    func process(
        _ image: DecodedImage, with processor: ImageProcessor, limits: ProcessingLimits, budget: MemoryBudget?
    ) throws(ImageProcessingError) -> DecodedImage
}
