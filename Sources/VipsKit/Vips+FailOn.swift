import CVips

extension Vips {
    /// How bad a decoder's complaint must be for a decode to fail (libvips' `VipsFailOn`).
    package enum FailOn: Sendable {
        /// Truncated data and worse (PNG's many harmless warnings pass).
        case truncated
        /// Any warning of the decoder (libjpeg's "premature end of data
        /// segment", the mark of a file cut short, is only a warning).
        case warning

        /// The `VipsFailOn` value.
        var level: Int32 {
            switch self {
            case .truncated: WARMER_VIPS_FAIL_ON_TRUNCATED
            case .warning: WARMER_VIPS_FAIL_ON_WARNING
            }
        }

        /// The same, as a loader option string.
        var loaderOption: String {
            switch self {
            case .truncated: "fail_on=truncated"
            case .warning: "fail_on=warning"
            }
        }
    }
}
