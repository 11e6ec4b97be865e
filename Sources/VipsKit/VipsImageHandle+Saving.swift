import CVips
import Foundation

extension VipsImageHandle {
    /// The image encoded as `format`, metadata stripped.
    /// - Parameter quality: 1-100; 0 keeps libvips' default. PNG ignores it.
    package func encoded(as format: Vips.SaveFormat, quality: Int) throws(VipsFailure) -> Data {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let quality = Int32(quality)
        let status = switch format {
        case .jpeg: warmer_vips_jpegsave(vips.table, pointer, &buffer, &length, quality)
        case .png: warmer_vips_pngsave(vips.table, pointer, &buffer, &length)
        case .webp: warmer_vips_webpsave(vips.table, pointer, &buffer, &length, quality)
        case .avif: warmer_vips_avifsave(vips.table, pointer, &buffer, &length, quality)
        }
        guard status == 0, let buffer else {
            if let buffer { warmer_vips_free(vips.table, buffer) }
            throw VipsFailure(message: vips.takeError())
        }
        defer { warmer_vips_free(vips.table, buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// Writes the image to a file, as the `vips` command does: the saver is
    /// the one of `path`'s extension, and saver options may follow it in
    /// brackets (`photo.jpg[Q=90,interlace]`, `page.tif[compression=lzw]`).
    /// Any format this libvips saves, metadata kept unless the options strip it.
    package func write(toFile path: String) throws(VipsFailure) {
        guard warmer_vips_write_to_file(vips.table, pointer, path) == 0 else {
            throw VipsFailure(message: vips.takeError())
        }
    }
}
