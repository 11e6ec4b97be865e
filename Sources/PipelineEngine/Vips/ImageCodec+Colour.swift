import VipsKit

extension ImageCodec {
    /// `image` (lazily) converted to what the processors and encoders expect:
    /// 8-bit values, sRGB, or grey for grey images; alpha, if any, kept last.
    ///
    /// - Parameter applyICCProfile: convert through an embedded ICC profile
    ///   (Display P3, Adobe RGB, CMYK profiles…) to sRGB. Thumbnails have had
    ///   it applied by `vips_thumbnail` already.
    static func normalised(_ image: VipsImageHandle, applyICCProfile: Bool) throws(VipsFailure) -> VipsImageHandle {
        var image = image
        if applyICCProfile, image.hasICCProfile, !isGrey(image) {
            // A broken profile is not worth failing for: fall back to the
            // profile-less conversion below (the failure cleared the error).
            if let converted = try? image.convertedToSRGBByICCProfile() {
                image = converted
            }
        }
        let target: Vips.Interpretation = isGrey(image) ? .blackAndWhite : .sRGB
        let acceptable: Set<Vips.Interpretation> = isGrey(image)
            ? [.blackAndWhite]
            // 8-bit RGB without a more precise label is taken as sRGB.
            : [.sRGB, .rgb, .multiband]
        if image.format != .uchar || !(image.interpretation.map(acceptable.contains) ?? false) {
            image = try image.converted(to: target)
        }
        if image.format != .uchar {
            image = try image.cast(to: .uchar)
        }
        return image
    }

    /// Whether the image's pixels are grey levels.
    private static func isGrey(_ image: VipsImageHandle) -> Bool {
        image.interpretation?.isGrey ?? false
    }
}
