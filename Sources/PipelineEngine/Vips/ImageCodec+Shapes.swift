import CVips

extension ImageCodec {
    /// The centre square of `image` with everything outside its inscribed
    /// circle transparent.
    static func circle(_ image: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        let vips = image.vips
        let side = min(image.width, image.height)
        var square = image
        if image.width != image.height {
            square = try vips.making {
                warmer_vips_extract_area(
                    vips.table, image.pointer, $0,
                    Int32((image.width - side) / 2), Int32((image.height - side) / 2), Int32(side), Int32(side))
            }
        }
        let mask = try opaqueMask(width: side, height: side, vips: vips) { mask in
            warmer_vips_fill_circle(vips.table, mask, 255, Int32(side / 2), Int32(side / 2), Int32(side / 2))
        }
        return try applying(mask: mask, to: square)
    }

    /// `image` with its corners outside quarter circles of `radius` pixels
    /// transparent, or nil when the radius is 0 or less (nothing to cut).
    static func roundedCorners(_ image: VipsImageHandle, radius: Int) throws(VipsFailure) -> VipsImageHandle? {
        let (width, height) = (image.width, image.height)
        let r = min(radius, min(width, height) / 2)
        guard r > 0 else { return nil }
        let vips = image.vips
        let mask = try opaqueMask(width: width, height: height, vips: vips) { mask in
            // Two overlapping rectangles (a plus sign) and a disc in each corner.
            var status: Int32 = 0
            if width > 2 * r { status |= warmer_vips_fill_rect(vips.table, mask, 255, Int32(r), 0, Int32(width - 2 * r), Int32(height)) }
            if height > 2 * r { status |= warmer_vips_fill_rect(vips.table, mask, 255, 0, Int32(r), Int32(width), Int32(height - 2 * r)) }
            for (cx, cy) in [(r, r), (width - 1 - r, r), (r, height - 1 - r), (width - 1 - r, height - 1 - r)] {
                status |= warmer_vips_fill_circle(vips.table, mask, 255, Int32(cx), Int32(cy), Int32(r))
            }
            return status
        }
        return try applying(mask: mask, to: image)
    }

    /// A one-band 8-bit mask, 0 (transparent) everywhere except where `draw`
    /// paints 255 (opaque). `draw` paints in place on a fresh memory image
    /// that nothing else can see, and returns non-zero on failure.
    private static func opaqueMask(
        width: Int, height: Int, vips: Vips, draw: (OpaquePointer) -> Int32
    ) throws(VipsFailure) -> VipsImageHandle {
        let black = try vips.making { warmer_vips_black(vips.table, $0, Int32(width), Int32(height)) }
        // libvips draws only on memory images.
        let canvas = try black.materialised()
        guard draw(canvas.pointer) == 0 else { throw VipsFailure(message: vips.takeError()) }
        return canvas
    }

    /// `image` with `mask` as its alpha: the mask itself when `image` has no
    /// alpha, else the pixel-wise minimum of both (a bitwise AND, as the mask
    /// is 0 or 255).
    private static func applying(mask: VipsImageHandle, to image: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        let vips = image.vips
        guard image.hasAlpha else {
            return try vips.making { warmer_vips_bandjoin2(vips.table, image.pointer, mask.pointer, $0) }
        }
        let colourBands = Int32(image.bands - 1)
        let colour = try vips.making { warmer_vips_extract_bands(vips.table, image.pointer, $0, 0, colourBands) }
        let alpha = try vips.making { warmer_vips_extract_bands(vips.table, image.pointer, $0, colourBands, 1) }
        let combined = try vips.making { warmer_vips_and(vips.table, alpha.pointer, mask.pointer, $0) }
        return try vips.making { warmer_vips_bandjoin2(vips.table, colour.pointer, combined.pointer, $0) }
    }
}
