/// A decoded image: pixels in memory, ready to process or encode.
///
/// A `DecodedImage` is immutable and fully computed (libvips' lazy pipeline
/// has run): it depends on no source data, and any number of threads may
/// process or encode it at the same time. Its pixels are 8-bit, sRGB (or
/// grey), upright, with an optional alpha band last.
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

    /// The materialised libvips image.
    let handle: VipsImageHandle

    /// Wraps a materialised image (see `VipsImageHandle.materialised()`).
    init(materialised handle: VipsImageHandle) {
        self.handle = handle
        width = handle.width
        height = handle.height
        bandCount = handle.bands
        hasAlpha = handle.hasAlpha
        cost = width * height * bandCount * handle.bytesPerBand
    }

    /// The band values (0…255) of the pixel at (`x`, `y`); for tests and diagnostics.
    /// - Throws: `ImageProcessingError.processingFailed` when (x, y) lies outside the image.
    func pixel(x: Int, y: Int) throws(ImageProcessingError) -> [Double] {
        do {
            return try handle.pixel(x: x, y: y)
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
