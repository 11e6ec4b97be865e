import ArgumentParser
import Foundation
import PipelineEngine
import WarmerInput
import WarmerWorker

/// `warmer cache`: inspect the disk cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect the disk cache.",
        subcommands: [Path.self, Get.self]
    )

    /// `warmer cache path URL`.
    struct Path: AsyncParsableCommand, ConfiguredCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print where a URL's data is cached. Exits 1 if it is not cached (the path is still printed)."
        )

        @OptionGroup var general: GeneralOptions
        @OptionGroup var cache: CacheOptions
        @OptionGroup(title: "Processing (to find a processed variant)") var processing: ProcessingOptions

        @Argument(help: "The image URL, exactly as enqueued.")
        var url: String

        static let settingCommand = SettingCommand.cachePath

        var settingFlags: GivenFlags { cache.givenFlags }

        func run() async throws {
            let dataCache = try await resolveSettings().makeDataCache(creating: false)
            let key = try CacheCommand.key(for: url, processing)
            Console.write(dataCache.fileURL(for: key).path + "\n")
            guard dataCache.containsData(for: key) else { throw WarmerError.notCached(url) }
        }
    }

    /// `warmer cache get URL [-o FILE]`.
    struct Get: AsyncParsableCommand, ConfiguredCommand {
        static let configuration = CommandConfiguration(abstract: "Write a URL's cached bytes to standard output or a file.")

        @OptionGroup var general: GeneralOptions
        @OptionGroup var cache: CacheOptions
        @OptionGroup(title: "Processing (to find a processed variant)") var processing: ProcessingOptions

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
        var output: String?

        @Argument(help: "The image URL, exactly as enqueued.")
        var url: String

        static let settingCommand = SettingCommand.cacheGet

        var settingFlags: GivenFlags { cache.givenFlags }

        func run() async throws {
            let dataCache = try await resolveSettings().makeDataCache(creating: false)
            let key = try CacheCommand.key(for: url, processing)
            guard let data = dataCache.cachedData(for: key) else { throw WarmerError.notCached(url) }
            if let output {
                try data.write(to: URL(fileURLWithPath: output))
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }
}

extension CacheCommand {
    /// The disk cache key of `url`: its original data, or with processing
    /// flags the encoded variant they describe (docs/cache-layout.md;
    /// `CacheKey`, which `GET /v1/cache` uses too).
    static func key(for url: String, _ processing: ProcessingOptions) throws -> String {
        CacheKey.of(url, processing: processing.isGiven ? try processing.spec() : nil)
    }
}
