import Foundation
import Synchronization
import VipsKit

/// The noise every test image is cut from, made in the test process with
/// libvips (VipsKit), once: two canvases computed into memory at the first
/// image, whose pixels every test then shares (`VipsPixels`).
///
/// The images used to be made by the `vips` command, whose start (libvips
/// and its hundred libraries loading) cost about 55 ms of CPU per image: a
/// quarter of `make test-fast`'s CPU time. Each cut starts at a different
/// place of its canvas, so two images of the same size made one after the
/// other have different bytes; an image larger than the canvases gets noise
/// of its own.
enum NoiseCanvas {
    /// The canvases' width and height.
    static let side = 2048

    /// Three bands of 8-bit sRGB noise (sigma 60 around 128: `gaussnoise`,
    /// `colourspace srgb`, `cast uchar`, as the images always were).
    static let colour: Result<VipsPixels, any Error> = Result {
        try VipsPixels(materialised: noise(width: side, height: side, grey: false, seed: 1).materialised())
    }

    /// One band of 8-bit grey noise.
    static let grey: Result<VipsPixels, any Error> = Result {
        try VipsPixels(materialised: noise(width: side, height: side, grey: true, seed: 2).materialised())
    }

    private static let cuts = Mutex(0)

    /// A `width`×`height` noise image, sRGB or grey, 8 bits per band: cut
    /// from a canvas at the next place, or noise of its own when larger.
    /// Lazy, for the calling thread only (`VipsImageHandle`).
    static func image(width: Int, height: Int, grey: Bool) throws -> VipsImageHandle {
        guard width <= side, height <= side else {
            return try noise(width: width, height: height, grey: grey, seed: nextCut())
        }
        let cut = nextCut()
        // Steps that are prime to each other and to the side: successive cuts land far apart.
        let left = (cut * 769) % (side - width + 1)
        let top = (cut * 487) % (side - height + 1)
        let canvas = try (grey ? Self.grey : colour).get()
        return try canvas.view(retaining: canvas).extractingArea(left: left, top: top, width: width, height: height)
    }

    private static func noise(width: Int, height: Int, grey: Bool, seed: Int) throws -> VipsImageHandle {
        let noise = try Vips.shared.get().gaussianNoise(width: width, height: height, sigma: 60, mean: 128, seed: seed)
        return try (grey ? noise : noise.converted(to: .sRGB)).cast(to: .uchar)
    }

    private static func nextCut() -> Int {
        cuts.withLock { count in
            count += 1
            return count
        }
    }
}
