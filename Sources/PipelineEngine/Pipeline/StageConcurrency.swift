import Foundation

extension ImagePipeline {
    /// Concurrent operations per stage. Each stage has its own queue, served
    /// in priority order, FIFO within a priority.
    public struct StageConcurrency: Sendable, Hashable {
        /// Downloads in flight. Default: 32 (Nuke, for a phone: 6).
        public var dataLoading = 32
        /// Disk cache reads of data to decode. Default: 4.
        public var dataCaching = 4
        /// Decodes. Default: one per core, plus one (Nuke: 1).
        public var decoding = StageConcurrency.imageThreads
        /// Processing steps. Default: one per core, plus one (Nuke: 2).
        public var processing = StageConcurrency.imageThreads
        /// Encodes. Default: one per core, plus one (Nuke: 1).
        public var encoding = StageConcurrency.imageThreads

        /// Creates the server defaults.
        public init() {}

        /// The number of active processor cores.
        public static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

        /// The default for CPU stages: one per core, plus one. libvips runs
        /// one thread per image here (see `Vips`); the extra thread keeps the
        /// cores busy while an operation waits on memory or a handoff
        /// (bench/processed.sh measured it ~5% faster than one per core).
        public static var imageThreads: Int { cores + 1 }
    }
}
