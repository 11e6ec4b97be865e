/// An image file format Warmer knows by name.
///
/// All of them decode (with the loaders `ImageLimits` allows); `jpeg`, `png`,
/// `webp` and `avif` also encode (`isEncodable`).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG (libjpeg-turbo).
    case jpeg
    /// PNG (libspng or libpng).
    case png
    /// WebP (libwebp).
    case webp
    /// GIF (decode only; the first frame of an animation).
    case gif
    /// HEIF/HEIC (libheif; decode only).
    case heif
    /// AVIF: HEIF with AV1 compression (libheif with aom).
    case avif

    /// Whether `ImageCodec` can encode this format.
    public var isEncodable: Bool {
        switch self {
        case .jpeg, .png, .webp, .avif: true
        case .gif, .heif: false
        }
    }

    /// The usual file name extension, without the dot: `jpg`, `png`,
    /// `webp`, `gif`, `heic`, `avif`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        case .heif: "heic"
        case .avif: "avif"
        }
    }
}
