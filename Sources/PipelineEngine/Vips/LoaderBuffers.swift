import Foundation

/// What a loader holds in memory beside the decoded pixels, while it
/// decodes, read from the file's own header bytes (libvips does not report
/// it): the part of a decode's peak that the size of its result does not
/// show (measured: docs/memory.md, "What the memory budget bounds").
///
/// - A **progressive JPEG** is decoded in several passes over the whole
///   image, so libjpeg keeps every DCT coefficient of every component, 2
///   bytes each, until the last pass, even when it decodes at 1/8 scale for
///   a thumbnail: a 100-MP 4:4:4 file holds 600 MB for a 320-px thumbnail.
///   A baseline JPEG streams, a few rows at a time.
/// - An **interlaced (Adam7) PNG** is decoded whole into one buffer at its
///   own depth (8 bytes a pixel for 16-bit RGBA) before any row comes out.
/// - A **GIF** is drawn into a frame buffer of 4 bytes a pixel (RGBA) for
///   the whole canvas, however few colours it has.
/// - **WebP** and **HEIF** decode the whole image into a buffer of their own
///   before libvips copies it out: 4 bytes a pixel (RGBA) for WebP; for
///   HEIF the decoded planes and their RGB conversion.
struct LoaderBuffers {
    /// The bytes, estimated from `data`'s header, that a `loader` holds for
    /// an image of `width`×`height` with `bands` bands, beside the result;
    /// 0 for loaders that stream.
    static func bytes(of data: Data, loader: String, width: Int, height: Int, bands: Int) -> Int {
        switch loader {
        case "jpegload_buffer": jpegCoefficientBytes(data) ?? 0
        case "pngload_buffer": pngInterlacedBytes(data, width: width, height: height) ?? 0
        case "gifload_buffer": width * height * 4
        case "webpload_buffer": width * height * 4
        case "heifload_buffer": width * height * 6
        default: 0
        }
    }

    /// The coefficient buffer of a progressive JPEG (2 bytes a sample, every
    /// component at its own sampling, padded to whole 8×8 blocks and MCUs), or nil
    /// for a baseline one or data whose frame header cannot be read.
    static func jpegCoefficientBytes(_ data: Data) -> Int? {
        guard let frame = JPEGFrameHeader(data), frame.isProgressive else { return nil }
        let maxH = frame.components.map(\.horizontal).max() ?? 1
        let maxV = frame.components.map(\.vertical).max() ?? 1
        // A component's size in 8×8 blocks, rounded up to a whole number of
        // its sampling factor, as libjpeg allocates it (jdcoefct.c).
        func blocks(_ size: Int, _ factor: Int, _ max: Int) -> Int {
            let blocks = (size * factor + max * 8 - 1) / (max * 8)
            return (blocks + factor - 1) / factor * factor
        }
        return frame.components.reduce(0) { total, component in
            total + blocks(frame.width, component.horizontal, maxH) * blocks(frame.height, component.vertical, maxV) * 64 * 2
        }
    }

    /// The whole-image buffer of an interlaced PNG (its own bit depth and
    /// channels), or nil for a non-interlaced one or an unreadable header.
    static func pngInterlacedBytes(_ data: Data, width: Int, height: Int) -> Int? {
        let bytes = [UInt8](data.prefix(33))
        // Signature (8), IHDR length (4) and type (4), width, height, depth, colour type, compression, filter, interlace.
        guard bytes.count == 33, bytes[12...15].elementsEqual("IHDR".utf8), bytes[28] == 1 else { return nil }
        let depth = max(8, Int(bytes[24]))
        let channels = switch bytes[25] {
        case 2: 3  // RGB
        case 4: 2  // grey + alpha
        case 6: 4  // RGBA
        default: 1  // grey, palette
        }
        return width * height * channels * depth / 8
    }
}
