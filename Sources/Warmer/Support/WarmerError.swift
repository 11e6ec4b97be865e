import Scheduler

/// Errors the CLI reports to the user.
enum WarmerError: Error, CustomStringConvertible {
    case unreadableFile(String)
    case noURLs
    case invalidURLs(String)
    case processingNeedsProcessedDestination
    case notCached(String)
    /// A self-check at start failed: the worker refuses to start.
    case cannotStart(String)
    /// `--cache-dir` names a file.
    case cacheFolderIsAFile(String)
    /// An inspection command's `--cache-dir` does not exist.
    case noCacheFolder(String)
    /// `dead retry`/`dead purge` ids that are no dead letters.
    case unknownDeadLetters([String])
    /// `status --job ID` of a job the queue does not hold.
    case jobNotFound(String)

    var description: String {
        switch self {
        case .unreadableFile(let path): "Cannot read '\(path)'"
        case .noURLs: "The input holds no URLs"
        case .invalidURLs(let details): details
        case .processingNeedsProcessedDestination: "Processing flags need --destination processed (the disk destination stores the original bytes)"
        case .notCached(let url): "Not in the cache: \(URLCredentials.masked(url))"
        case .cannotStart(let reason): "Cannot start: \(URLCredentials.masked(reason))"
        case .cacheFolderIsAFile(let path): "The cache folder \(path) is a file, not a folder (--cache-dir, WARMER_CACHE_DIR)"
        case .noCacheFolder(let path): "No cache folder at \(path) (--cache-dir, WARMER_CACHE_DIR): nothing is cached there"
        case .unknownDeadLetters(let ids): "Not dead-lettered in this queue (see `warmer dead list`): \(ids.joined(separator: ", "))"
        case .jobNotFound(let id): "No job '\(id)' in this queue (never created, or expired after its retention)"
        }
    }
}
