/// The output format and quality of the encoding stage (what a request asks
/// for; `ImageEncoding` is the encoder that produces it).
///
/// Encodable formats: `jpeg`, `png`, `webp`, `avif` (see
/// `ImageFormat.isEncodable`); encoding to another fails with `encodingFailed`.
/// JPEG has no alpha: a transparent image is flattened onto white. Every
/// encoder strips metadata (EXIF, ICC, XMP); pixels are sRGB.
public struct OutputEncoding: Sendable, Hashable {
    /// The output format.
    public let format: ImageFormat
    /// Quality from 1 (smallest) to 100 (best), or nil for libvips' default
    /// (JPEG 75, WebP 75, AVIF 50). Always nil for PNG, which is lossless.
    public let quality: Int?

    /// An encoding to `format` at `quality`. Quality is clamped to 1…100 and
    /// dropped for PNG, so that encodings producing the same bytes are equal
    /// and share cache keys.
    public init(format: ImageFormat, quality: Int? = nil) {
        self.format = format
        self.quality = format == .png ? nil : quality.map { min(100, max(1, $0)) }
    }

    /// `FORMAT(q=Q)`: FORMAT is `ImageFormat`'s raw value, Q the quality or
    /// `default`; e.g. `webp(q=80)`, `jpeg(q=default)`, `png(q=default)`.
    /// Stable across releases: it is part of cache keys.
    public var identifier: String {
        "\(format.rawValue)(q=\(quality.map(String.init) ?? "default"))"
    }

    /// The file name extension of the output, without the dot (`jpg`, `webp`…).
    public var fileExtension: String { format.fileExtension }
}
