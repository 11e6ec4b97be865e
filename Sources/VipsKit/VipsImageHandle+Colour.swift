import CVips

extension VipsImageHandle {
    /// Converted to 8-bit sRGB through the embedded ICC profile.
    package func convertedToSRGBByICCProfile() throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_icc_to_srgb(vips.table, $0, $1) }
    }

    /// Converted to the colour space `interpretation`.
    package func converted(to interpretation: Vips.Interpretation) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_colourspace(vips.table, $0, $1, interpretation.value) }
    }

    /// Every band's values cast to `format` (clipped, not scaled).
    package func cast(to format: Vips.BandFormat) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_cast(vips.table, $0, $1, format.value) }
    }

    /// Labelled with `interpretation`: a lazy copy, no pixel is copied.
    package func relabelled(as interpretation: Vips.Interpretation) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_relabel(vips.table, $0, $1, interpretation.value) }
    }

    /// Without its alpha band, composited onto white.
    package func flattenedOntoWhite() throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_flatten_white(vips.table, $0, $1) }
    }

    /// Colour premultiplied by alpha (values become floats).
    package func premultiplied() throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_premultiply(vips.table, $0, $1) }
    }

    /// Colour divided by alpha again (values stay floats).
    package func unpremultiplied() throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_unpremultiply(vips.table, $0, $1) }
    }
}
