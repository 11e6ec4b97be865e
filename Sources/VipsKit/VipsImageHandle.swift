import CVips
import Foundation

/// One owned reference to a libvips image (`VipsImage*`), released with
/// `g_object_unref` when the handle goes away.
///
/// libvips images are lazy: a handle may stand for a pipeline that has not
/// computed a pixel yet and may borrow a caller's buffer. Such handles stay
/// local to the function that built them (in PipelineEngine, `ImageCodec`).
/// Only materialised handles (see `materialised()`) leave it, inside a
/// `VipsPixels`. Every operation (see the extensions) returns a new handle
/// and leaves its inputs unchanged, except the `fill` drawing calls.
// @unchecked: the handle's state is immutable (a pointer and what it
// retains). No handle is used by two threads: lazy handles stay in the
// function that built them, and a VipsPixels' owner handle is never given
// to libvips after its init; each operation on shared pixels gets a view
// of its own (see VipsPixels). A handle may be released on another
// thread, which g_object_unref allows.
package final class VipsImageHandle: @unchecked Sendable {

    /// The owned `VipsImage*`.
    let pointer: OpaquePointer
    /// The libvips that made it.
    package let vips: Vips
    /// What must outlive the image: the owner of the pixels a view borrows
    /// (`VipsPixels.view(retaining:)`); nil for images that own what they use.
    let retained: (any AnyObject & Sendable)?

    /// Takes ownership of one reference to `pointer`, keeping `retained`
    /// alive as long as the image.
    init(taking pointer: OpaquePointer, vips: Vips, retaining retained: (any AnyObject & Sendable)? = nil) {
        self.pointer = pointer
        self.vips = vips
        self.retained = retained
    }

    deinit {
        warmer_vips_unref(vips.table, UnsafeMutableRawPointer(pointer))
    }

    /// Width in pixels.
    package var width: Int { Int(warmer_vips_width(vips.table, pointer)) }
    /// Height in pixels.
    package var height: Int { Int(warmer_vips_height(vips.table, pointer)) }
    /// Number of bands (channels), alpha included.
    package var bands: Int { Int(warmer_vips_bands(vips.table, pointer)) }
    /// The format of each band's values; nil when libvips names none.
    package var format: Vips.BandFormat? { Vips.BandFormat(warmer_vips_format(vips.table, pointer)) }
    /// How the bands are to be read (sRGB, B_W, CMYK…); nil when libvips names none.
    package var interpretation: Vips.Interpretation? {
        Vips.Interpretation(warmer_vips_interpretation(vips.table, pointer))
    }
    /// Whether the last band is alpha.
    package var hasAlpha: Bool { warmer_vips_has_alpha(vips.table, pointer) != 0 }
    /// The EXIF orientation, 1 (upright) to 8.
    package var orientation: Int { Int(warmer_vips_orientation(vips.table, pointer)) }
    /// Whether an ICC profile is embedded.
    package var hasICCProfile: Bool { warmer_vips_has_icc_profile(vips.table, pointer) != 0 }

    /// Bytes one value of one band takes.
    package var bytesPerBand: Int { format?.byteCount ?? 1 }

    /// Computes every pixel into memory and returns the resulting image: it
    /// borrows nothing, and any number of threads may read it or build on it.
    /// An image that already is in memory comes back as a new reference to itself.
    package func materialised() throws(VipsFailure) -> VipsImageHandle {
        guard let copy = warmer_vips_copy_memory(vips.table, pointer) else {
            throw VipsFailure(message: vips.takeError())
        }
        // A memory image comes back as itself: it still borrows what it borrowed.
        return VipsImageHandle(taking: copy, vips: vips, retaining: copy == pointer ? retained : nil)
    }

    /// The band values of the pixel at (`x`, `y`).
    package func pixel(x: Int, y: Int) throws(VipsFailure) -> [Double] {
        var values = [Double](repeating: 0, count: 16)
        let count = values.withUnsafeMutableBufferPointer { buffer in
            warmer_vips_getpoint(vips.table, pointer, Int32(x), Int32(y), buffer.baseAddress, Int32(buffer.count))
        }
        guard count >= 0 else { throw VipsFailure(message: vips.takeError()) }
        return Array(values.prefix(Int(count)))
    }

    /// Runs a libvips call that makes a new image from this one (`pointer`
    /// is `in`, the argument `out`).
    func making(
        _ operation: (_ input: OpaquePointer, _ out: UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(VipsFailure) -> VipsImageHandle {
        try vips.making { operation(pointer, $0) }
    }
}
