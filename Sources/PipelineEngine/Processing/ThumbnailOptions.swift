/// Decode a smaller image straight from the data, using libvips'
/// shrink-on-load (`vips_thumbnail_buffer`): JPEG and WebP decode at reduced
/// size, several times faster than a full decode followed by a resize.
///
/// The result's longest side is at most `maxPixelSize`; the aspect ratio is
/// kept; an image already that small is decoded at its own size, never
/// enlarged. The image is rotated upright by its EXIF orientation.
public struct ThumbnailOptions: Sendable, Hashable {
    /// The longest side of the result, in pixels (at least 1).
    public let maxPixelSize: Int

    /// Thumbnails whose longest side is at most `maxPixelSize` pixels.
    /// Values below 1 are raised to 1.
    public init(maxPixelSize: Int) {
        self.maxPixelSize = max(1, maxPixelSize)
    }

    /// `thumb(N)` with N = `maxPixelSize`, e.g. `thumb(320)`. Stable across
    /// releases: it is part of cache keys.
    public var identifier: String { "thumb(\(maxPixelSize))" }
}
