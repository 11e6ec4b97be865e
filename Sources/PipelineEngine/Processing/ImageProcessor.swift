/// A transformation of a decoded image, applied by the processing stage.
///
/// Processors go into cache keys: two requests with equal processors (in the
/// same order) share work and cache entries. `identifier` is the processor's
/// part of a key on disk, so its spelling is a compatibility promise.
public enum ImageProcessor: Sendable, Hashable {
    /// Scales (and optionally crops) the image; see `Resize`.
    case resize(Resize)
    /// Blurs with a Gaussian of standard deviation `radius` pixels (libvips'
    /// sigma). The size is unchanged. 0 leaves the image as it is; a negative
    /// or non-finite radius fails with `processingFailed`.
    case gaussianBlur(radius: Double)
    /// Crops the centre square (side = the shorter side) and makes everything
    /// outside the inscribed circle transparent (alpha 0).
    case circle
    /// Makes the corners outside quarter circles of `radius` pixels
    /// transparent (alpha 0). The radius is limited to half the shorter side;
    /// 0 or less leaves the image as it is.
    case roundedCorners(radius: Int)

    /// A stable text naming the processor and every parameter, for cache keys
    /// and logs. The spelling never changes between releases:
    ///
    /// | processor | identifier |
    /// |---|---|
    /// | `.resize(...)` | `resize(w=320,h=0,fit,crop=0,up=0)` (see `Resize.identifier`) |
    /// | `.gaussianBlur(radius: 8)` | `blur(8.0)`: the radius in Swift's shortest round-trip decimal form |
    /// | `.circle` | `circle` |
    /// | `.roundedCorners(radius: 12)` | `rounded(12)` |
    public var identifier: String {
        switch self {
        case .resize(let resize): resize.identifier
        case .gaussianBlur(let radius): "blur(\(radius))"
        case .circle: "circle"
        case .roundedCorners(let radius): "rounded(\(radius))"
        }
    }
}

extension ImageProcessor: CustomStringConvertible {
    /// The processor's `identifier`.
    public var description: String { identifier }
}
