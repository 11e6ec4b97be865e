import VipsKit
import Foundation

extension ImageCodec {
    /// Encodes `image` as `encoding` says. JPEG flattens alpha onto white;
    /// every encoder strips metadata. `image` may be encoded by other threads
    /// at the same time.
    /// - Throws: `encodingFailed` when libvips fails, or the format cannot be
    ///   encoded (`ImageFormat.isEncodable`).
    static func encode(_ image: DecodedImage, as encoding: OutputEncoding) throws(ImageProcessingError) -> Data {
        do {
            return try encode(image.view(), as: encoding)
        } catch {
            throw .encodingFailed("\(encoding.identifier): \(error.message)")
        }
    }

    /// `encode(_:as:)` on the libvips image.
    private static func encode(_ image: VipsImageHandle, as encoding: OutputEncoding) throws(VipsFailure) -> Data {
        let format: Vips.SaveFormat
        switch encoding.format {
        case .jpeg: format = .jpeg
        case .png: format = .png
        case .webp: format = .webp
        case .avif: format = .avif
        case .gif, .heif:
            throw VipsFailure(message: "\(encoding.format.rawValue) is not an output format (use jpeg, png, webp or avif)")
        }
        var input = image
        if format == .jpeg, image.hasAlpha {
            input = try image.flattenedOntoWhite()
            if input.format != .uchar { input = try input.cast(to: .uchar) }
        }
        return try input.encoded(as: format, quality: encoding.quality ?? 0)  // 0: libvips' default
    }
}
