import CVips

extension VipsImageHandle {
    /// Rotated and flipped upright by its EXIF orientation, the tag cleared.
    /// Needs random access: use it on a materialised image.
    package func autorotated() throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_autorot(vips.table, $0, $1) }
    }

    /// Scaled by `horizontal` and `vertical` (lanczos3).
    package func resized(horizontalScale horizontal: Double, verticalScale vertical: Double) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_resize(vips.table, $0, $1, horizontal, vertical) }
    }

    /// The rectangle at (`left`, `top`), `width` × `height` pixels.
    package func extractingArea(left: Int, top: Int, width: Int, height: Int) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_extract_area(vips.table, $0, $1, Int32(left), Int32(top), Int32(width), Int32(height)) }
    }

    /// Blurred with a Gaussian of standard deviation `sigma`.
    package func gaussianBlurred(sigma: Double) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_gaussblur(vips.table, $0, $1, sigma) }
    }
}
