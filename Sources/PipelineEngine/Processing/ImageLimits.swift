/// Limits against hostile input, checked from the image header before any
/// pixel is decoded.
public struct ImageLimits: Sendable, Hashable {
    /// The libvips loaders Warmer ever uses: JPEG, PNG, WebP, GIF and
    /// HEIF/AVIF. Debian's libvips also offers loaders for PDF, SVG, TIFF,
    /// JPEG 2000, JPEG XL, ImageMagick (`magickload_buffer`) and more; they
    /// widen the attack surface and are always refused.
    public static let supportedLoaders: Set<String> = [
        "jpegload_buffer", "pngload_buffer", "webpload_buffer", "gifload_buffer", "heifload_buffer",
    ]

    /// The largest width × height decoded; larger images fail with
    /// `tooManyPixels` before decoding. Default 100 megapixels.
    public let maxPixelCount: Int
    /// The libvips loader nicknames (e.g. `jpegload_buffer`) accepted; others
    /// fail with `unsupportedFormat`. Always a subset of `supportedLoaders`.
    public let allowedLoaders: Set<String>

    /// Limits of at most `maxPixelCount` pixels from `allowedLoaders`.
    /// `allowedLoaders` can narrow `supportedLoaders` but never widen it:
    /// other names are ignored.
    public init(maxPixelCount: Int = 100_000_000, allowedLoaders: Set<String> = ImageLimits.supportedLoaders) {
        self.maxPixelCount = maxPixelCount
        self.allowedLoaders = allowedLoaders.intersection(ImageLimits.supportedLoaders)
    }

    /// 100 megapixels from any supported loader.
    public static let `default` = ImageLimits()
}
