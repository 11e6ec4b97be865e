import Foundation
import PipelineEngine

/// The `Content-Type` of cached bytes, from their signature (PipelineEngine's
/// `ImageFormat(sniffing:)`): JPEG, PNG, GIF, WebP, AVIF, HEIF/HEIC (an
/// `ftyp` box of a HEIF brand; an MP4 video is none), else
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
        case .heif: "image/heic"
        case nil: "application/octet-stream"
        }
    }
}
