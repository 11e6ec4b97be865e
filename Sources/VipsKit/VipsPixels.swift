import CVips

/// The pixels of a materialised image, shared read-only by any number of
/// threads.
///
/// Threads never share a `VipsImage`: libvips creates some of an image's
/// bookkeeping lazily, without a lock, the first time a pipeline is built on
/// it (`vips__reorder_set_input`), so two threads building on one image at
/// once could free each other's data (heap corruption, issue 10). So the
/// image that owns the pixels is never given to libvips after `init` (only
/// released), and each operation gets a `view(retaining:)` of its own: a new
/// image over the same memory.
package final class VipsPixels: Sendable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// Number of bands (channels), alpha included.
    package let bands: Int
    /// Whether the last band is alpha.
    package let hasAlpha: Bool
    /// Bytes of pixel memory: width × height × bands × bytes per band.
    package let byteCount: Int

    /// The materialised image that owns the pixels; after `init` no libvips
    /// call sees it again (only its release).
    private let owner: VipsImageHandle
    /// The address of the pixels, read once in `init` (a bit pattern, so
    /// that the type stays `Sendable`; the memory is never written again).
    private let address: UInt
    /// The format of each band's values.
    private let format: VipsBandFormat
    /// How the bands are read.
    private let interpretation: VipsInterpretation

    /// Takes over a materialised image (see `VipsImageHandle.materialised()`),
    /// before any other thread can see it.
    package init(materialised handle: VipsImageHandle) throws(VipsFailure) {
        let vips = handle.vips
        guard let pixels = warmer_vips_image_data(vips.table, handle.pointer) else {
            throw VipsFailure(message: vips.takeError())
        }
        owner = handle
        address = UInt(bitPattern: pixels)
        format = warmer_vips_format(vips.table, handle.pointer)
        interpretation = warmer_vips_interpretation(vips.table, handle.pointer)
        width = handle.width
        height = handle.height
        bands = handle.bands
        hasAlpha = handle.hasAlpha
        byteCount = width * height * bands * handle.bytesPerBand
    }

    /// A new libvips image of its own over these pixels, for one operation
    /// on one thread. It keeps `owner` (which must keep these pixels alive)
    /// alive as long as it lives.
    package func view(retaining owner: any AnyObject & Sendable) throws(VipsFailure) -> VipsImageHandle {
        let vips = self.owner.vips
        guard let pixels = UnsafeRawPointer(bitPattern: address),
              let image = warmer_vips_image_over_memory(
                  vips.table, pixels, byteCount, Int32(width), Int32(height), Int32(bands), format) else {
            throw VipsFailure(message: vips.takeError())
        }
        // A memory image is labelled by its band count; restore the label (alpha detection depends on it).
        let bare = VipsImageHandle(taking: image, vips: vips, retaining: owner)
        let label = interpretation
        return try vips.making(retaining: owner) { warmer_vips_relabel(vips.table, bare.pointer, $0, label) }
    }
}
