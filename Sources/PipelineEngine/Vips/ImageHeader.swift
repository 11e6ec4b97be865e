import CVips
import Foundation

/// An image's dimensions and format, read from its header without decoding pixels.
public struct ImageHeader: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The libvips loader that recognised the data, e.g. `jpegload_buffer`.
    public let loader: String

    /// Reads the header of encoded image data.
    /// - Throws: `ImageHeaderError` when libvips does not recognise the data.
    public init(data: Data) throws(ImageHeaderError) {
        let vips: Vips
        switch Vips.shared {
        case .success(let loaded): vips = loaded
        case .failure(let error): throw .libvipsUnavailable(error.reason)
        }
        let header: Result<ImageHeader, ImageHeaderError> = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .failure(.unrecognised("empty data")) }
            guard let loader = warmer_vips_find_loader(vips.table, base, buffer.count) else {
                return .failure(.unrecognised(vips.takeError()))
            }
            // The image borrows `buffer`; read what we need before it goes away.
            guard let image = warmer_vips_open_buffer(vips.table, base, buffer.count) else {
                return .failure(.unrecognised(vips.takeError()))
            }
            defer { warmer_vips_unref(vips.table, UnsafeMutableRawPointer(image)) }
            return .success(ImageHeader(
                width: Int(warmer_vips_width(vips.table, image)),
                height: Int(warmer_vips_height(vips.table, image)),
                loader: vips.nickname(ofType: loader)
            ))
        }
        self = try header.get()
    }

    private init(width: Int, height: Int, loader: String) {
        self.width = width
        self.height = height
        self.loader = loader
    }
}
