import ArgumentParser
import Foundation
import PipelineEngine
import Scheduler
import WarmerInput
import WarmerSupport
import WarmerWorker

/// `warmer warm`: warms URLs into the local disk cache, no Redis needed.
struct WarmCommand: AsyncParsableCommand, ConfiguredCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Warm URLs into the local disk cache, with no Redis at all.",
        discussion: """
            Without processing flags the original bytes are stored; with them (e.g. --thumbnail 320 --format webp) \
            each image is decoded, processed and the encoded result stored. Prints one line per URL (a progress \
            line on a terminal) and a summary. Exits 1 if any URL failed.
            """
    )

    @OptionGroup var general: GeneralOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Processing") var processing: ProcessingOptions
    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions
    @OptionGroup(title: "Network") var network: NetworkOptions

    @Option(name: Settings.concurrency.info.argumentName, help: Settings.concurrency.info.argumentHelp)
    var concurrency: String?

    @Argument(help: ArgumentHelp("File of URLs, or - for standard input.", valueName: "file"))
    var file: String

    static let settingCommand = SettingCommand.warm

    var settingFlags: GivenFlags {
        cache.givenFlags.merging(pipelineOptions.givenFlags).merging(network.givenFlags).with(Settings.concurrency, concurrency)
    }

    func run() async throws {
        let settings = try await resolveSettings()
        settings.bootstrapLogging()
        MallocArenas.limit()
        MallocArenas.trimPeriodically()
        let list = try URLList(path: file)
        try list.validate()
        let dataCache = try settings.makeDataCache(sweeps: true)
        let pipeline = ImagePipeline(configuration: settings.pipelineConfiguration(
            dataLoader: DataLoader(configuration: settings.loaderConfiguration()), dataCache: dataCache))
        let spec = processing.isGiven ? try processing.spec() : nil
        let reporter = WarmReporter(total: list.urls.count, isTerminal: standardOutputIsTerminal)
        let start = ContinuousClock.now

        let timeLimit = settings.jobTimeout
        await withTaskGroup(of: (String, Result<ImageResponse, WarmFailure>).self) { group in
            var pending = list.urls.makeIterator()
            func startNext() {
                guard let text = pending.next(), let url = URL(string: text) else { return }
                group.addTask {
                    var request = ImageRequest(url: url)
                    spec?.apply(to: &request)
                    let task = spec == nil ? pipeline.prefetchData(for: request) : pipeline.prefetchImage(for: request)
                    // Each URL gets --job-timeout, as a worker's job does.
                    let limit = TaskTimeLimit(timeLimit, cancelling: task)
                    let result = await task.result
                    limit.stop()
                    return (text, result.mapError { error in
                        guard error == .cancelled, limit.hasExpired else { return WarmFailure(error) }
                        return WarmFailure(code: TaskTimeLimit.errorCode, description: limit.message)
                    })
                }
            }
            for _ in 0..<settings[Settings.concurrency] { startNext() }
            while let (url, result) = await group.next() {
                reporter.report(url: url, result: result)
                startNext()
            }
        }
        dataCache.flush() // nothing staged may be lost when the process exits
        reporter.finish(elapsed: ContinuousClock.now - start, cacheDirectory: settings.cacheDirectory)
        if reporter.failed > 0 { throw ExitCode(1) }
    }
}
