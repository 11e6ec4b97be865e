import Foundation
import PipelineEngine

/// The `Content-Type` of cached bytes, from their signature (PipelineEngine's
/// `ImageFormat(sniffing:)`): JPEG, PNG, GIF, WebP, AVIF, HEIF/HEIC, else
/// `application/octet-stream` (a cache may hold non-images with
/// `--accept-non-images`).
enum ImageMediaType {
    /// How many leading bytes `of(_:)` needs.
    static let signatureLength = 16

    /// The media type of data beginning with `prefix`.
    static func of(_ prefix: Data) -> String {
        switch ImageFormat(sniffing: prefix) {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heif: isHEIF(prefix) ? "image/heic" : "application/octet-stream"
        case nil: "application/octet-stream"
        }
    }

    /// Whether an ISO base media file's major brand is one of HEIF's (the
    /// sniffer takes any `ftyp` box for HEIF; an MP4 video is not an image).
    private static func isHEIF(_ prefix: Data) -> Bool {
        let bytes = [UInt8](prefix.prefix(12))
        guard bytes.count == 12 else { return false }
        let brand = String(decoding: bytes[8..<12], as: UTF8.self)
        return ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand)
    }
}
