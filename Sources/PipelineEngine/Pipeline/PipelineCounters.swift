import Synchronization

/// How much work an `ImagePipeline` has done, by stage: what tests assert
/// on ("one download, one resize") and what metrics export.
public final class PipelineCounters: Sendable {
    private struct Counts {
        var downloads = 0
        var decodes = 0
        var encodes = 0
        var processed: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())

    init() {}

    /// Downloads started.
    public var downloads: Int { counts.withLock { $0.downloads } }
    /// Images decoded (from original data or an encoded copy on disk).
    public var decodes: Int { counts.withLock { $0.decodes } }
    /// Images encoded.
    public var encodes: Int { counts.withLock { $0.encodes } }
    /// Processing steps applied, in total.
    public var processings: Int { counts.withLock { $0.processed.values.reduce(0, +) } }

    /// How many times the processor with `identifier` was applied.
    public func processings(of identifier: String) -> Int {
        counts.withLock { $0.processed[identifier, default: 0] }
    }

    func countDownload() { counts.withLock { $0.downloads += 1 } }
    func countDecode() { counts.withLock { $0.decodes += 1 } }
    func countEncode() { counts.withLock { $0.encodes += 1 } }
    func countProcessing(_ processor: ImageProcessor) { counts.withLock { $0.processed[processor.identifier, default: 0] += 1 } }
}
