import CVips

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

    /// The materialised libvips image that owns the pixels. After `init` no
    /// libvips call sees it again (only its release): operations use views.
    private let owner: VipsImageHandle
    /// The address of the pixels, read once in `init` (a bit pattern, so that
    /// the image stays `Sendable`; the memory is never written again).
    private let pixelAddress: UInt
    /// The format of each band's values.
    private let bandFormat: VipsBandFormat
    /// How the bands are read (sRGB or B_W).
    private let interpretation: VipsInterpretation
    /// The share of the pipeline's `MemoryBudget` the pixels hold, given
    /// back when the image goes away.
    private let reservation: MemoryBudget.Reservation?

    /// Wraps a materialised image (see `VipsImageHandle.materialised()`),
    /// before any other thread can see it.
    init(materialised handle: VipsImageHandle, reservation: MemoryBudget.Reservation? = nil) throws(VipsFailure) {
        guard let pixels = warmer_vips_image_data(handle.vips.table, handle.pointer) else {
            throw VipsFailure(message: handle.vips.takeError())
        }
        owner = handle
        pixelAddress = UInt(bitPattern: pixels)
        bandFormat = handle.format
        interpretation = handle.interpretation
        width = handle.width
        height = handle.height
        bandCount = handle.bands
        hasAlpha = handle.hasAlpha
        cost = width * height * bandCount * handle.bytesPerBand
        self.reservation = reservation
        reservation?.shrink(to: cost)
    }

    /// A new libvips image of its own over these pixels, for one operation
    /// on one thread. It keeps this image (and so the pixels) alive.
    func view() throws(VipsFailure) -> VipsImageHandle {
        let vips = owner.vips
        guard let pixels = UnsafeRawPointer(bitPattern: pixelAddress),
              let image = warmer_vips_image_over_memory(
                  vips.table, pixels, cost, Int32(width), Int32(height), Int32(bandCount), bandFormat) else {
            throw VipsFailure(message: vips.takeError())
        }
        // A memory image is labelled by its band count; restore the label (alpha detection depends on it).
        let bare = VipsImageHandle(taking: image, vips: vips, retaining: self)
        let label = interpretation
        return try vips.making(retaining: self) { warmer_vips_relabel(vips.table, bare.pointer, $0, label) }
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
