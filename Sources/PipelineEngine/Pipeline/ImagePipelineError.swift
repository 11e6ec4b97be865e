/// Why an `ImageTask` failed.
public enum ImagePipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request had `returnCacheDataDontLoad` and the data was not cached.
    case dataMissingInCache
    /// The download failed.
    case dataLoadingFailed(DataLoaderError)
    /// The data was downloaded but could not be written to the disk cache.
    case dataCacheWriteFailed(String)
    /// The origin answered with something that is not an image the
    /// pipeline reads (an HTML page, say): nothing was stored. The
    /// associated text shows how the body begins.
    case notAnImage(String)
    /// Decoding, processing or encoding failed, or the image was refused
    /// (too many pixels, a format that is not allowed).
    case imageProcessingFailed(ImageProcessingError)
    /// The task was cancelled.
    case cancelled

    /// A short, stable identifier for machines (events, metrics).
    public var code: String {
        switch self {
        case .dataMissingInCache: "data_missing_in_cache"
        case .dataLoadingFailed(let error): error.code
        case .dataCacheWriteFailed: "cache_write_failed"
        case .notAnImage: "not_an_image"
        case .imageProcessingFailed(let error): error.code
        case .cancelled: "cancelled"
        }
    }

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .dataMissingInCache: "The data is not in the cache and the request forbids loading it"
        case .dataLoadingFailed(let error): error.description
        case .dataCacheWriteFailed(let reason): "Could not write to the disk cache: \(reason)"
        case .notAnImage(let beginning): "The response is not an image (JPEG, PNG, GIF, WebP, AVIF or HEIF); it begins \(beginning)"
        case .imageProcessingFailed(let error): error.description
        case .cancelled: "The task was cancelled"
        }
    }
}
