import Foundation

extension ImageFormat {
    /// The format of encoded data, recognised by its first bytes; `nil` when
    /// it is none of the formats the pipeline reads.
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
        else if matches(Array("ftyp".utf8), at: 4) { self = .heif }
        else { return nil }
    }

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
