import VipsKit

extension ImageCodec {
    /// The centre square of `image` with everything outside its inscribed
    /// circle transparent.
    static func circle(_ image: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        let side = min(image.width, image.height)
        var square = image
        if image.width != image.height {
            square = try image.extractingArea(
                left: (image.width - side) / 2, top: (image.height - side) / 2, width: side, height: side)
        }
        let mask = try opaqueMask(width: side, height: side, vips: image.vips) { mask throws(VipsFailure) in
            try mask.fillCircle(value: 255, centreX: side / 2, centreY: side / 2, radius: side / 2)
        }
        return try applying(mask: mask, to: square)
    }

    /// `image` with its corners outside quarter circles of `radius` pixels
    /// transparent, or nil when the radius is 0 or less (nothing to cut).
    static func roundedCorners(_ image: VipsImageHandle, radius: Int) throws(VipsFailure) -> VipsImageHandle? {
        let (width, height) = (image.width, image.height)
        let r = min(radius, min(width, height) / 2)
        guard r > 0 else { return nil }
        let mask = try opaqueMask(width: width, height: height, vips: image.vips) { mask throws(VipsFailure) in
            // Two overlapping rectangles (a plus sign) and a disc in each corner.
            if width > 2 * r { try mask.fillRectangle(value: 255, left: r, top: 0, width: width - 2 * r, height: height) }
            if height > 2 * r { try mask.fillRectangle(value: 255, left: 0, top: r, width: width, height: height - 2 * r) }
            for (cx, cy) in [(r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)] {
                try mask.fillCircle(value: 255, centreX: cx, centreY: cy, radius: r)
            }
        }
        return try applying(mask: mask, to: image)
    }

    /// A one-band 8-bit mask, 0 (transparent) everywhere except where `draw`
    /// paints 255 (opaque). `draw` paints in place on a fresh memory image
    /// that nothing else can see.
    private static func opaqueMask(
        width: Int, height: Int, vips: Vips, draw: (VipsImageHandle) throws(VipsFailure) -> Void
    ) throws(VipsFailure) -> VipsImageHandle {
        // A memory image: libvips draws only on those.
        let canvas = try vips.black(width: width, height: height)
        try draw(canvas)
        return canvas
    }

    /// `image` with `mask` as its alpha: the mask itself when `image` has no
    /// alpha, else the pixel-wise minimum of both (a bitwise AND, as the mask
    /// is 0 or 255).
    private static func applying(mask: VipsImageHandle, to image: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        guard image.hasAlpha else { return try image.joiningBands(of: mask) }
        let colourBands = image.bands - 1
        let colour = try image.extractingBands(first: 0, count: colourBands)
        let alpha = try image.extractingBands(first: colourBands, count: 1)
        return try colour.joiningBands(of: alpha.bitwiseAnd(mask))
    }
}
