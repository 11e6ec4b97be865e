import Foundation

extension ImageFormat {
    /// The format of encoded data, recognised by its first bytes; `nil` when
    /// it is none of the formats the pipeline reads. HEIF is an `ftyp` box
    /// with one of HEIF's major brands (`heic`, `mif1`…).
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(12))
        func matches(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if matches([0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if matches([0x89, 0x50, 0x4E, 0x47]) { self = .png }
        else if matches(Array("GIF8".utf8)) { self = .gif }
        else if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) { self = .webp }
        else if matches(Array("ftypavif".utf8), at: 4) || matches(Array("ftypavis".utf8), at: 4) { self = .avif }
        else if matches(Array("ftyp".utf8), at: 4) && Self.heifBrands.contains(where: { matches(Array($0.utf8), at: 8) }) {
            self = .heif
        }
        else { return nil }
    }

    /// The major brands of an ISO base media file (`ftyp` box) that make it
    /// HEIF/HEIC; another (an MP4 video's `isom`, `mp42`…) is not an image.
    private static let heifBrands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]

    /// The format an image of this format is re-encoded to when the request
    /// names none: itself when libvips can write it, else PNG (GIF) or JPEG (HEIF).
    var defaultOutputFormat: ImageFormat {
        switch self {
        case .jpeg, .png, .webp, .avif: self
        case .gif: .png
        case .heif: .jpeg
        }
    }
}
