import Foundation
import VipsKit

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
        guard !data.isEmpty else { throw .unrecognised("empty data") }
        self = try vips.reading(data) { source throws(ImageHeaderError) in
            do throws(VipsFailure) {
                let loader = try source.loader()
                // The image borrows the bytes; read what we need before they go away.
                let image = try source.openSequential()
                return ImageHeader(width: image.width, height: image.height, loader: loader)
            } catch {
                throw .unrecognised(error.message)
            }
        }
    }

    private init(width: Int, height: Int, loader: String) {
        self.width = width
        self.height = height
        self.loader = loader
    }
}
