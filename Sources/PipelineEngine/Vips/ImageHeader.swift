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
        guard Vips.ensureInitialised() else { throw .libvipsUnavailable }
        let header: Result<ImageHeader, ImageHeaderError> = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .failure(.unrecognised("empty data")) }
            guard let loader = vips_foreign_find_load_buffer(base, buffer.count) else {
                return .failure(.unrecognised(Vips.takeError()))
            }
            // The image borrows `buffer`; read what we need before it goes away.
            guard let image = warmer_vips_open_buffer(base, buffer.count) else {
                return .failure(.unrecognised(Vips.takeError()))
            }
            defer { warmer_vips_unref(image) }
            return .success(ImageHeader(
                width: Int(vips_image_get_width(image)),
                height: Int(vips_image_get_height(image)),
                loader: Vips.nickname(ofType: loader)
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

/// Why an image header could not be read.
public enum ImageHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips could not be initialised.
    case libvipsUnavailable
    /// The data is not an image libvips can read.
    case unrecognised(String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .libvipsUnavailable: "libvips could not be initialised"
        case .unrecognised(let reason): "Not a readable image: \(reason)"
        }
    }
}
