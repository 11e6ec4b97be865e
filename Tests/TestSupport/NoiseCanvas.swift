import Foundation
import Synchronization

/// Noise images made once per test process, from which the test images are
/// cut: one `vips` process per image instead of three to five. Starting
/// `vips` costs about 75 ms of CPU (libvips and its modules load), which
/// made image generation a tenth of the suite's CPU time.
///
/// Each cut starts at a different place of the canvas, so two images of the
/// same size made one after the other have different bytes.
enum NoiseCanvas {
    /// The canvases' width and height; a larger image is made from noise of its own.
    static let side = 2048

    /// Three bands of 8-bit sRGB noise (sigma 60 around 128, as the images
    /// were before: `gaussnoise`, `colourspace srgb`, `cast uchar`).
    static let colour: Result<URL, any Error> = Result {
        let noise = try folder.get().appendingPathComponent("noise.v")
        let srgb = try folder.get().appendingPathComponent("srgb.v")
        let file = try folder.get().appendingPathComponent("colour.v")
        try VipsCommand.run(["gaussnoise", noise.path, String(side), String(side), "--sigma", "60", "--mean", "128"])
        try VipsCommand.run(["colourspace", noise.path, srgb.path, "srgb"])
        try VipsCommand.run(["cast", srgb.path, file.path, "uchar"])
        try? FileManager.default.removeItem(at: noise)
        try? FileManager.default.removeItem(at: srgb)
        return file
    }

    /// One band of 8-bit grey noise.
    static let grey: Result<URL, any Error> = Result {
        let noise = try folder.get().appendingPathComponent("grey-noise.v")
        let file = try folder.get().appendingPathComponent("grey.v")
        try VipsCommand.run(["gaussnoise", noise.path, String(side), String(side), "--sigma", "60", "--mean", "128"])
        try VipsCommand.run(["cast", noise.path, file.path, "uchar"])
        try? FileManager.default.removeItem(at: noise)
        return file
    }

    /// Where the canvases are, removed when the process exits.
    private static let folder: Result<URL, any Error> = Result {
        let folder = try TestEnvironment.temporaryDirectory("warmer-noise-canvas")
        folderPath.withLock { $0 = folder.path }
        atexit {
            if let path = NoiseCanvas.folderPath.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
        return folder
    }

    private static let folderPath = Mutex<String?>(nil)
    private static let cuts = Mutex(0)

    /// The `vips crop` arguments that cut a `width`×`height` image from
    /// `canvas` into `output` (a file name, with saver options if any), at
    /// the next place; nil when the image is larger than the canvases.
    static func cut(from canvas: Result<URL, any Error>, width: Int, height: Int, into output: String) throws -> [String]? {
        guard width <= side, height <= side else { return nil }
        let cut = cuts.withLock { count in
            count += 1
            return count
        }
        // Steps that are prime to each other and to the side: successive cuts land far apart.
        let left = (cut * 769) % (side - width + 1)
        let top = (cut * 487) % (side - height + 1)
        return ["crop", try canvas.get().path, output, String(left), String(top), String(width), String(height)]
    }
}
