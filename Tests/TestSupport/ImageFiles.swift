import Foundation
import VipsKit

/// Real image files generated with libvips (cut from a `NoiseCanvas`) in a
/// temporary folder of their own: for imaging tests that need no nginx origin. The folder is
/// removed when the `ImageFiles` goes away.
public final class ImageFiles: Sendable {
    /// The folder the files are written to.
    public let directory: URL

    /// A fresh, empty folder for images.
    public init() throws {
        directory = try TestEnvironment.temporaryDirectory("warmer-images")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Generates a noise image (noise keeps encoded files large and makes
    /// every pixel different from its neighbours) and returns its bytes.
    ///
    /// - Parameters:
    ///   - format: the file extension libvips picks the saver by: `jpg`, `png`,
    ///     `webp`, `gif`, `avif`, `tif`…
    ///   - alpha: add an opaque alpha band (RGBA).
    ///   - grey: one grey band instead of RGB.
    ///   - colourspace: convert to this libvips interpretation before saving,
    ///     e.g. `cmyk` or `rgb16` (a 16-bit PNG).
    ///   - saveOptions: saver options in libvips' syntax, e.g. `[Q=90]`.
    public func make(
        width: Int, height: Int, format: String = "jpg", alpha: Bool = false, grey: Bool = false,
        colourspace: String? = nil, saveOptions: String = ""
    ) throws -> Data {
        let file = directory.appendingPathComponent("\(UUID().uuidString.prefix(8)).\(format)")
        var image = try NoiseCanvas.image(width: width, height: height, grey: grey)
        if alpha {
            let opaque = try Vips.shared.get().black(width: width, height: height)
            try opaque.fillRectangle(value: 255, left: 0, top: 0, width: width, height: height)
            image = try image.joiningBands(of: opaque)
        }
        if let colourspace {
            guard let interpretation = Self.interpretations[colourspace] else {
                throw VipsFailure(message: "ImageFiles.make: no colourspace named \(colourspace)")
            }
            image = try image.converted(to: interpretation)
        }
        try image.write(toFile: file.path + saveOptions)
        return try Data(contentsOf: file)
    }

    /// The colourspaces `make` converts to, by their libvips names.
    private static let interpretations: [String: Vips.Interpretation] = [
        "cmyk": .cmyk, "rgb16": .rgb16, "grey16": .grey16, "srgb": .sRGB, "b-w": .blackAndWhite,
    ]

    /// `jpeg` (as written by libvips, which always stores an EXIF orientation
    /// of 1) with its EXIF orientation tag set to `orientation` (1…8), or nil
    /// when the tag is not found.
    public static func settingJPEGOrientation(_ jpeg: Data, to orientation: UInt8) -> Data? {
        // Tag 0x0112, type SHORT, count 1, value 1, little-endian ("II") TIFF.
        let tag: [UInt8] = [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00]
        let bytes = [UInt8](jpeg.prefix(4096))
        guard bytes.count >= tag.count,
              let start = (0...(bytes.count - tag.count)).first(where: { Array(bytes[$0..<($0 + tag.count)]) == tag })
        else { return nil }
        var patched = jpeg
        patched[patched.startIndex + start + 8] = orientation
        return patched
    }

    /// `jpeg` with the size in its frame header (SOF0/1/2) changed to
    /// `width`×`height`: a file whose header claims far more pixels than its
    /// data holds, as a hostile producer would send. Nil when no frame header is found.
    public static func settingJPEGFrameSize(_ jpeg: Data, width: UInt16, height: UInt16) -> Data? {
        var bytes = [UInt8](jpeg)
        var index = 2  // after SOI
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker) {
                bytes[index + 5] = UInt8(height >> 8); bytes[index + 6] = UInt8(height & 0xFF)
                bytes[index + 7] = UInt8(width >> 8); bytes[index + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            index += 2 + length
        }
        return nil
    }

    /// A PNG whose header announces `width`×`height` 8-bit RGB pixels,
    /// followed by a few bytes of meaningless image data: a valid header at
    /// no cost, for decompression-bomb checks. Decoding its pixels would fail.
    public static func pngHeader(width: UInt32, height: UInt32) -> Data {
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xff) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let data: [UInt8] = [0x78, 0x9c, 0x01, 0x02, 0x03, 0x04]
        return Data(signature + chunk("IHDR", header) + chunk("IDAT", data) + chunk("IEND", []))
    }

    /// The CRC-32 PNG chunks end with.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
