/// Why decoding, processing or encoding an image failed.
public enum ImageProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data's format is not allowed (`ImageLimits.allowedLoaders`).
    /// `loader` is the libvips loader that recognised it (e.g. `pdfload_buffer`),
    /// or `unrecognised` when none did (text, HTML, empty data…).
    case unsupportedFormat(loader: String)
    /// The header announces more pixels than `limit`; nothing was decoded.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// Decoding the image would take more memory than the whole
    /// `MemoryBudget` (`needed` and `budget` in bytes); nothing was decoded.
    case overMemoryBudget(needed: Int, budget: Int)
    /// The data is truncated or corrupt; libvips' message.
    case decodingFailed(String)
    /// A processor failed; `processor` is its identifier.
    case processingFailed(processor: String, reason: String)
    /// The processing asked for breaks `ProcessingLimits` (an output too
    /// large, a blur too strong, too many steps); nothing was computed.
    case invalidProcessing(String)
    /// Encoding failed (or the format cannot be encoded); libvips' message.
    case encodingFailed(String)
    /// libvips could not be loaded or initialised.
    case libvipsUnavailable(String)

    /// The `loader` of `unsupportedFormat` when no loader recognised the data.
    public static let unrecognisedLoader = "unrecognised"

    /// A stable snake_case name of the case, for events and metrics:
    /// `unsupported_format`, `too_many_pixels`, `over_memory_budget`, `decoding_failed`,
    /// `processing_failed`, `invalid_processing`, `encoding_failed`,
    /// `libvips_unavailable`.
    public var code: String {
        switch self {
        case .unsupportedFormat: "unsupported_format"
        case .tooManyPixels: "too_many_pixels"
        case .overMemoryBudget: "over_memory_budget"
        case .decodingFailed: "decoding_failed"
        case .processingFailed: "processing_failed"
        case .invalidProcessing: "invalid_processing"
        case .encodingFailed: "encoding_failed"
        case .libvipsUnavailable: "libvips_unavailable"
        }
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .unsupportedFormat(let loader) where loader == Self.unrecognisedLoader:
            "Unsupported image format: the data is not an image libvips recognises"
        case .unsupportedFormat(let loader):
            "Unsupported image format: loader \(loader) is not allowed (allowed: JPEG, PNG, WebP, GIF, HEIF/AVIF)"
        case .tooManyPixels(let width, let height, let limit):
            "Image too large: \(width)×\(height) = \(width * height) pixels, the limit is \(limit)"
        case .overMemoryBudget(let needed, let budget):
            "Image too large for the memory budget: decoding needs \(needed >> 20) MiB, the whole budget is \(budget >> 20) MiB"
        case .decodingFailed(let reason):
            "Decoding failed (truncated or corrupt data?): \(reason)"
        case .processingFailed(let processor, let reason):
            "Processor \(processor) failed: \(reason)"
        case .invalidProcessing(let reason):
            "Processing refused: \(reason)"
        case .encodingFailed(let reason):
            "Encoding failed: \(reason)"
        case .libvipsUnavailable(let reason):
            "libvips is unavailable: \(reason)"
        }
    }
}
