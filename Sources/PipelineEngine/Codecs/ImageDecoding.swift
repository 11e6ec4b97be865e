import Foundation

/// Decodes image data: the decoding stage's seam, after Nuke's `ImageDecoding`.
///
/// `VipsDecoder` (libvips, shrink-on-load thumbnails) is the default. A
/// decoder runs on a decoding-queue thread and may block; several threads
/// decode at once.
public protocol ImageDecoding: Sendable {
    /// Decodes `data` — straight to a thumbnail when `thumbnail` is given —
    /// within `limits`, reserving the pixels' memory from `budget` (waiting
    /// for room until `shouldStop` says the task is gone).
    /// - Throws: `ImageProcessingError` (unsupported or hostile data, over budget…).
    func decode(
        _ data: Data, thumbnail: ThumbnailOptions?, limits: ImageLimits, budget: MemoryBudget?,
        shouldStop: () -> Bool
    ) throws(ImageProcessingError) -> DecodedImage
}
