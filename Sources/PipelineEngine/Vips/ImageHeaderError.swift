/// Why an image header could not be read.
public enum ImageHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips could not be loaded or initialised.
    case libvipsUnavailable(String)
    /// The data is not an image libvips can read.
    case unrecognised(String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .libvipsUnavailable(let reason): "libvips is unavailable: \(reason)"
        case .unrecognised(let reason): "Not a readable image: \(reason)"
        }
    }
}
