import CVips

extension ImageCodec {
    /// `image` (lazily) converted to what the processors and encoders expect:
    /// 8-bit values, sRGB, or grey for grey images; alpha, if any, kept last.
    ///
    /// - Parameter applyICCProfile: convert through an embedded ICC profile
    ///   (Display P3, Adobe RGB, CMYK profiles…) to sRGB. Thumbnails have had
    ///   it applied by `vips_thumbnail` already.
    static func normalised(_ image: VipsImageHandle, applyICCProfile: Bool) throws(VipsFailure) -> VipsImageHandle {
        let vips = image.vips
        var image = image
        if applyICCProfile, image.hasICCProfile, !isGrey(image.interpretation) {
            // A broken profile is not worth failing for: fall back to the
            // profile-less conversion below (`making` cleared the error).
            if let converted = try? vips.making({ warmer_vips_icc_to_srgb(vips.table, image.pointer, $0) }) {
                image = converted
            }
        }
        let target = isGrey(image.interpretation) ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
        let acceptable: Set<VipsInterpretation.RawValue> = isGrey(image.interpretation)
            ? [VIPS_INTERPRETATION_B_W.rawValue]
            // 8-bit RGB without a more precise label is taken as sRGB.
            : [VIPS_INTERPRETATION_sRGB.rawValue, VIPS_INTERPRETATION_RGB.rawValue, VIPS_INTERPRETATION_MULTIBAND.rawValue]
        if image.format != VIPS_FORMAT_UCHAR || !acceptable.contains(image.interpretation.rawValue) {
            let source = image
            image = try vips.making { warmer_vips_colourspace(vips.table, source.pointer, $0, target) }
        }
        if image.format != VIPS_FORMAT_UCHAR {
            let source = image
            image = try vips.making { warmer_vips_cast(vips.table, source.pointer, $0, VIPS_FORMAT_UCHAR) }
        }
        return image
    }

    /// Whether pixels of this interpretation are grey levels.
    private static func isGrey(_ interpretation: VipsInterpretation) -> Bool {
        interpretation == VIPS_INTERPRETATION_B_W || interpretation == VIPS_INTERPRETATION_GREY16
    }
}
