import VipsKit

/// A decoded image: pixels in memory, ready to process or encode.
///
/// A `DecodedImage` is immutable and fully computed (libvips' lazy pipeline
/// has run): it depends on no source data, and any number of threads may
/// process or encode it at the same time. Its pixels are 8-bit, sRGB (or
/// grey), upright, with an optional alpha band last.
///
/// Threads never share a `VipsImage`: libvips creates some of an image's
/// bookkeeping lazily, without a lock, the first time a pipeline is built on
/// it (`vips__reorder_set_input`), so two threads building on one image at
/// once could free each other's data (heap corruption, issue 10). Each
/// operation gets a `view()` of its own over the same read-only pixels.
public final class DecodedImage: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Number of bands (channels), alpha included: 1 grey, 2 grey + alpha,
    /// 3 RGB, 4 RGBA.
    public let bandCount: Int
    /// Whether the last band is alpha.
    public let hasAlpha: Bool
    /// Bytes of pixel memory: width × height × bands × bytes per band. The
    /// memory cache's cost.
    public let cost: Int
    /// The format of the encoded data the image was decoded from (kept
    /// through processing): the output format of a re-encode, also when the
    /// image is served from the memory cache.
    public let sourceFormat: ImageFormat?

    /// The pixels, which no libvips call sees except through a view of
    /// its own (see `VipsPixels`).
    private let pixels: VipsPixels
    /// The share of the pipeline's `MemoryBudget` the pixels hold, given
    /// back when the image goes away.
    private let reservation: MemoryBudget.Reservation?

    /// Wraps a materialised image (see `VipsImageHandle.materialised()`),
    /// before any other thread can see it.
    init(
        materialised handle: VipsImageHandle, sourceFormat: ImageFormat?, reservation: MemoryBudget.Reservation? = nil
    ) throws(VipsFailure) {
        pixels = try VipsPixels(materialised: handle)
        self.sourceFormat = sourceFormat
        width = pixels.width
        height = pixels.height
        bandCount = pixels.bands
        hasAlpha = pixels.hasAlpha
        cost = pixels.byteCount
        self.reservation = reservation
        reservation?.shrink(to: cost)
    }

    /// A new libvips image of its own over these pixels, for one operation
    /// on one thread. It keeps this image (and so the pixels and the
    /// reservation) alive.
    func view() throws(VipsFailure) -> VipsImageHandle {
        try pixels.view(retaining: self)
    }

    /// The band values (0…255) of the pixel at (`x`, `y`); for tests and diagnostics.
    /// - Throws: `ImageProcessingError.processingFailed` when (x, y) lies outside the image.
    func pixel(x: Int, y: Int) throws(ImageProcessingError) -> [Double] {
        do {
            return try view().pixel(x: x, y: y)
        } catch {
            throw .processingFailed(processor: "getpoint(\(x),\(y))", reason: error.message)
        }
    }
}

extension DecodedImage: CustomStringConvertible {
    /// `W×H, N bands[, alpha]`.
    public var description: String {
        "\(width)×\(height), \(bandCount) bands\(hasAlpha ? ", alpha" : "")"
    }
}
