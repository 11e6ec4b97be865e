extension Vips {
    /// The formats libvips encodes to (`VipsImageHandle.encoded(as:quality:)`).
    package enum SaveFormat: Sendable {
        /// JPEG (no alpha: flatten first).
        case jpeg
        /// PNG (lossless; quality does not apply).
        case png
        /// WebP.
        case webp
        /// AVIF: HEIF with AV1 compression.
        case avif
    }
}
