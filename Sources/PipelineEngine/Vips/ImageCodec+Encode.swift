import CVips
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
        let vips = image.vips
        let quality = Int32(encoding.quality ?? 0)  // 0: libvips' default
        var input = image
        if encoding.format == .jpeg, image.hasAlpha {
            input = try vips.making { warmer_vips_flatten_white(vips.table, image.pointer, $0) }
            if input.format != VIPS_FORMAT_UCHAR {
                let flattened = input
                input = try vips.making { warmer_vips_cast(vips.table, flattened.pointer, $0, VIPS_FORMAT_UCHAR) }
            }
        }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch encoding.format {
        case .jpeg: status = warmer_vips_jpegsave(vips.table, input.pointer, &buffer, &length, quality)
        case .png: status = warmer_vips_pngsave(vips.table, input.pointer, &buffer, &length)
        case .webp: status = warmer_vips_webpsave(vips.table, input.pointer, &buffer, &length, quality)
        case .avif: status = warmer_vips_avifsave(vips.table, input.pointer, &buffer, &length, quality)
        case .gif, .heif:
            throw VipsFailure(message: "\(encoding.format.rawValue) is not an output format (use jpeg, png, webp or avif)")
        }
        guard status == 0, let buffer else {
            if let buffer { warmer_vips_free(vips.table, buffer) }
            throw VipsFailure(message: vips.takeError())
        }
        defer { warmer_vips_free(vips.table, buffer) }
        return Data(bytes: buffer, count: length)
    }
}
