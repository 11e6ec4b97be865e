import CVips

extension Vips {
    /// The format of one band's values (libvips' `VipsBandFormat`; raw
    /// values are libvips', checked by scripts/check-vips-signatures.sh).
    package enum BandFormat: Int32, Sendable {
        /// Unsigned 8-bit.
        case uchar = 0
        /// Signed 8-bit.
        case char = 1
        /// Unsigned 16-bit.
        case ushort = 2
        /// Signed 16-bit.
        case short = 3
        /// Unsigned 32-bit.
        case uint = 4
        /// Signed 32-bit.
        case int = 5
        /// 32-bit float.
        case float = 6
        /// Two 32-bit floats.
        case complex = 7
        /// 64-bit float.
        case double = 8
        /// Two 64-bit floats.
        case doubleComplex = 9

        /// Bytes one value takes.
        package var byteCount: Int {
            switch self {
            case .uchar, .char: 1
            case .ushort, .short: 2
            case .uint, .int, .float: 4
            case .complex, .double: 8
            case .doubleComplex: 16
            }
        }

        /// The format libvips names `value`; nil for `VIPS_FORMAT_NOTSET` and unknown values.
        init?(_ value: VipsBandFormat) {
            self.init(rawValue: Int32(truncatingIfNeeded: value.rawValue))
        }

        /// libvips' value.
        var value: VipsBandFormat {
            VipsBandFormat(rawValue: numericCast(rawValue))
        }
    }
}
