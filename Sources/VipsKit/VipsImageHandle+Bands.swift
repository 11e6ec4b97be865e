import CVips

extension VipsImageHandle {
    /// Bands `first` to `first + count - 1`.
    package func extractingBands(first: Int, count: Int) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_extract_bands(vips.table, $0, $1, Int32(first), Int32(count)) }
    }

    /// This image's bands followed by `other`'s.
    package func joiningBands(of other: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_bandjoin2(vips.table, $0, other.pointer, $1) }
    }

    /// The bitwise AND of this image and `other`, pixel by pixel.
    package func bitwiseAnd(_ other: VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
        try making { warmer_vips_and(vips.table, $0, other.pointer, $1) }
    }
}
