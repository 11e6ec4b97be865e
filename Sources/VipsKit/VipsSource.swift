import CVips

/// Encoded image bytes lent to libvips for the length of one
/// `Vips.reading(_:_:)` call.
///
/// The images it opens borrow the bytes and are lazy: they stay inside that
/// call, and what leaves it is materialised first.
package struct VipsSource {
    private let vips: Vips
    private let bytes: UnsafeRawBufferPointer

    init(vips: Vips, bytes: UnsafeRawBufferPointer) {
        self.vips = vips
        self.bytes = bytes
    }

    /// The nickname of the loader libvips would use for the bytes, e.g. `jpegload_buffer`.
    /// - Throws: `VipsFailure` when no loader recognises them (or there are none).
    package func loader() throws(VipsFailure) -> String {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw VipsFailure(message: "empty data") }
        guard let type = warmer_vips_find_loader(vips.table, base, bytes.count) else {
            throw VipsFailure(message: vips.takeError())  // "buffer is not in a known format"
        }
        return vips.nickname(ofType: type)
    }

    /// The image, opened for one top-to-bottom (sequential) read: only its
    /// header is read now; pixels are decoded when the image is computed.
    /// - Parameter failOn: how bad a decoder's complaint must be to fail
    ///   the computation; `nil` keeps libvips' default (never).
    package func openSequential(failOn: Vips.FailOn? = nil) throws(VipsFailure) -> VipsImageHandle {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw VipsFailure(message: "empty data") }
        let opened = if let failOn {
            warmer_vips_open_buffer_strict(vips.table, base, bytes.count, failOn.level)
        } else {
            warmer_vips_open_buffer(vips.table, base, bytes.count)
        }
        guard let opened else { throw VipsFailure(message: vips.takeError()) }
        return VipsImageHandle(taking: opened, vips: vips)
    }

    /// A thumbnail decoded by the loader's shrink-on-load, its longest side
    /// at most `maxSize` (never upscaled), rotated upright by its EXIF
    /// orientation and converted to sRGB through its ICC profile, if any.
    package func thumbnail(maxSize: Int, failOn: Vips.FailOn) throws(VipsFailure) -> VipsImageHandle {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw VipsFailure(message: "empty data") }
        return try vips.making {
            warmer_vips_thumbnail_buffer(vips.table, base, bytes.count, $0, Int32(maxSize), failOn.loaderOption)
        }
    }
}
