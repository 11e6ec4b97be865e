import CVips

extension Vips {
    /// How an image's bands are to be read (libvips' `VipsInterpretation`;
    /// raw values are libvips', checked by scripts/check-vips-signatures.sh).
    package enum Interpretation: Int32, Sendable {
        /// Bands with no particular meaning.
        case multiband = 0
        /// Grey levels (8-bit).
        case blackAndWhite = 1
        /// A histogram.
        case histogram = 10
        /// CIE XYZ.
        case xyz = 12
        /// CIE Lab.
        case lab = 13
        /// Cyan, magenta, yellow, black.
        case cmyk = 15
        /// Lab packed into 32 bits.
        case labq = 16
        /// Generic RGB.
        case rgb = 17
        /// Uniform colour space.
        case cmc = 18
        /// CIE LCh.
        case lch = 19
        /// Lab as signed shorts.
        case labs = 21
        /// sRGB.
        case sRGB = 22
        /// CIE Yxy.
        case yxy = 23
        /// A Fourier transform.
        case fourier = 24
        /// 16-bit RGB.
        case rgb16 = 25
        /// 16-bit grey levels.
        case grey16 = 26
        /// A matrix.
        case matrix = 27
        /// Linear sRGB.
        case scRGB = 28
        /// Hue, saturation, value.
        case hsv = 29

        /// Whether values are grey levels.
        package var isGrey: Bool { self == .blackAndWhite || self == .grey16 }

        /// The interpretation libvips names `value`; nil for `VIPS_INTERPRETATION_ERROR` and unknown values.
        init?(_ value: VipsInterpretation) {
            self.init(rawValue: Int32(truncatingIfNeeded: value.rawValue))
        }

        /// libvips' value.
        var value: VipsInterpretation {
            VipsInterpretation(rawValue: numericCast(rawValue))
        }
    }
}
