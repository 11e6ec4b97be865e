// swift-tools-version:6.2
import Foundation
import PackageDescription

/// Warmer: a distributed image cache-warming service.
///
/// Module boundaries (see docs/architecture.md):
/// - `WarmerSupport` is what the other modules share: the dedicated threads
///   and their inbox (`DedicatedThread`, `ThreadInbox`), `Duration`
///   conversions, the ISO 8601 UTC and HTTP-date texts (`UTCTime`,
///   `HTTPDate`), JSON string and hex encoding, and the product's version
///   (`WarmerVersion`). No dependencies.
/// - `CurlKit`, `VipsKit`, `RedisKit` and `DigestKit` wrap the C libraries
///   (`CCurl`, `CVips`, `CHiredis`, `CCrypto`): the only targets that import
///   a C module, so no other code sees a raw pointer. Each depends on its C
///   module (and WarmerSupport; RedisKit also on DigestKit, for script
///   SHA-1s), never on the modules above. DigestKit is libcrypto's SHA-1 and
///   SHA-256, not swift-crypto: see docs/architecture.md.
/// - `PipelineEngine` loads one image request end to end, over CurlKit and
///   VipsKit. Knows nothing of Redis.
/// - `Scheduler` is the Redis queue and event streams, over RedisKit. Knows nothing of images.
/// - `WarmerInput` parses what producers send (processing specs, URL lists,
///   intake documents): pure code, fuzzed by `scripts/fuzz.sh` (docs/testing.md).
/// - `Warmer` is the `warmer` executable that maps queued jobs to pipeline requests.
let package = Package(
    name: "Warmer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "warmer", targets: ["Warmer"]),
        .library(name: "PipelineEngine", targets: ["PipelineEngine"]),
        .library(name: "Scheduler", targets: ["Scheduler"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `Deque`, the FIFOs of the engine's queues (NIO depends on it already).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // `serve` uses NIO and HTTP types directly (its channel handlers, its
        // request deadline); Hummingbird depends on these packages already.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // YAML and JSON configuration files (--config); see docs/configuration.md.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "YAML"]),
        // Tests parse deploy/'s manifests with it; `warmer` lists a config file's keys with it
        // (swift-configuration depends on it already).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // libvips is loaded at run time (dlopen), not linked: see Sources/CVips/shim.h.
        .systemLibrary(name: "CVips", providers: [.apt(["libvips42"])]),
        // OpenSSL's libcrypto, for SHA-1 and SHA-256 only (libcurl links it already).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        .target(name: "WarmerSupport"),
        // The C libraries' wrappers: the only targets that import a C module.
        .target(name: "CurlKit", dependencies: ["CCurl", "WarmerSupport"]),
        .target(name: "VipsKit", dependencies: ["CVips"]),
        .target(name: "DigestKit", dependencies: ["CCrypto"]),
        .target(
            name: "RedisKit",
            dependencies: [
                "CHiredis", "WarmerSupport",
                // EVALSHA names a script by its SHA-1 (RedisScript).
                "DigestKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "PipelineEngine",
            dependencies: [
                "CurlKit", "VipsKit", "WarmerSupport",
                "DigestKit",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Scheduler",
            dependencies: [
                "RedisKit", "WarmerSupport",
                // The digest that makes a named batch's POST idempotent (JobQueue.submit).
                "DigestKit",
                .product(name: "Logging", package: "swift-log"),
            ],
            // The Lua scripts, compiled into the binary as `EmbeddedText.<file>_lua`
            // (the image ships the `warmer` binary alone): see `QueueScript`.
            plugins: ["EmbedTextPlugin"]
        ),
        .target(name: "WarmerInput", dependencies: ["PipelineEngine"]),
        .target(
            name: "WarmerWorker",
            dependencies: [
                "PipelineEngine", "Scheduler", "RedisKit", "WarmerInput", "WarmerSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The worker's own `/metrics`, `/healthz`, `/readyz` (StatusServer).
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .target(
            name: "WarmerServer",
            dependencies: [
                "WarmerWorker", "PipelineEngine", "Scheduler", "RedisKit", "WarmerInput", "WarmerSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // `serve` uses NIO and HTTP types directly (its channel handlers, its request deadline).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // `serve` keeps its bearer tokens as SHA-256 digests (BearerTokens).
                "DigestKit",
            ],
            // `serve` answers GET /openapi.yaml with its contract, and serves the
            // dashboard's HTML, CSS and JavaScript, all compiled in as
            // `EmbeddedText.<file>_<extension>`: see `ServerRoutes`, `DashboardAsset`.
            plugins: ["EmbedTextPlugin"]
        ),
        .executableTarget(
            name: "Warmer",
            dependencies: [
                "WarmerWorker", "WarmerServer", "PipelineEngine", "Scheduler", "RedisKit", "WarmerInput", "WarmerSupport",
                // Only to keep libcrypto's state until exit, first thing in main (`MessageDigest.keepLibraryUntilExit`).
                "DigestKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Configuration", package: "swift-configuration"),
                // Lists a config file's keys, to refuse unknown ones (docs/configuration.md).
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // Text files compiled into a target as strings (`EmbeddedText`), not with
        // SwiftPM's `.embedInCode`, whose byte-array literals took the compiler
        // 15 CPU-s for the Lua alone: see Plugins/EmbedText/main.swift.
        .executableTarget(name: "EmbedText", path: "Plugins/EmbedText"),
        .plugin(name: "EmbedTextPlugin", capability: .buildTool(), dependencies: ["EmbedText"]),

        // The properties the fuzzers check, shared with the test that replays their corpus.
        .target(name: "WarmerInputProperties", dependencies: ["WarmerInput"], path: "Fuzz/Properties"),

        // (VipsKit: the test images are made in-process, `NoiseCanvas`.)
        .target(name: "TestSupport", dependencies: ["VipsKit", "WarmerSupport"], path: "Tests/TestSupport"),
        .testTarget(name: "WarmerSupportTests", dependencies: ["WarmerSupport", "TestSupport"]),
        .testTarget(name: "CurlKitTests", dependencies: ["CurlKit", "TestSupport"]),
        .testTarget(name: "VipsKitTests", dependencies: ["VipsKit", "TestSupport"]),
        .testTarget(
            name: "RedisKitTests",
            dependencies: ["RedisKit", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "DigestKitTests", dependencies: ["DigestKit", "WarmerSupport"]),
        // In-memory fakes of the pipeline's seams (DataLoading, DataCaching,
        // ImageDecoding/Processing/Encoding): the task graph's fast tests.
        // A target of its own, because TestSupport (services) knows no engine.
        .target(name: "PipelineEngineFakes", dependencies: ["PipelineEngine", "TestSupport"], path: "Tests/PipelineEngineFakes"),
        // An in-memory queue for the worker (`WorkSource`): the worker runtime's fast tests.
        .target(name: "SchedulerFakes", dependencies: ["Scheduler", "TestSupport"], path: "Tests/SchedulerFakes"),
        .testTarget(name: "PipelineEngineTests", dependencies: ["PipelineEngine", "PipelineEngineFakes", "TestSupport"]),
        .testTarget(name: "SchedulerTests", dependencies: ["Scheduler", "RedisKit", "TestSupport"]),
        // The executable's own logic, in-process: settings, the terminal board, log lines,
        // and the repository's checks (module graph, docs, self-containment).
        .testTarget(name: "WarmerTests", dependencies: ["Warmer", "WarmerInput", "TestSupport"]),
        // What needs real processes: `warmer` workers and servers against real Redis
        // (single, restarted, Cluster), nginx, a browser; graceful stops, crashes,
        // partitions, systemd, the CLI's exit codes and output. `make test-fast` runs
        // every target but this one.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "Warmer", "WarmerWorker", "WarmerServer", "PipelineEngine", "Scheduler", "RedisKit", "WarmerInput", "WarmerSupport",
                "TestSupport",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "WarmerWorkerTests",
            dependencies: [
                "WarmerWorker", "PipelineEngineFakes", "SchedulerFakes", "PipelineEngine", "Scheduler", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "WarmerServerTests",
            dependencies: [
                "WarmerServer", "WarmerWorker", "PipelineEngine", "Scheduler", "RedisKit", "TestSupport",
                // Requests straight to the router (RoutedClient), not HummingbirdTesting: its
                // AsyncHTTPClient brings NIOSSL's BoringSSL and NIOHTTP2 into the build (docs/testing.md).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Raw connections to a live server: a Host of the test's choosing, chunked bodies, event streams.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The ETag of GET /v1/cache is the SHA-256 of the bytes.
                "DigestKit",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "WarmerInputTests",
            dependencies: ["WarmerInput", "WarmerInputProperties", "PipelineEngine", "Scheduler", "RedisKit", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: Fuzzing
//
// `scripts/fuzz.sh` builds the libFuzzer targets with WARMER_FUZZ=1 (and
// `-sanitize=fuzzer,address`, in .build-fuzz). The package is
// then only what the fuzzers need: WarmerInput over the part of
// PipelineEngine that describes processing (plain value types; no libcurl,
// libvips or swift-crypto, so the fuzz build takes seconds, not minutes).
// Those files must not import WarmerSupport, which the fuzz build leaves out,
// nor DequeModule: swift-collections is left out too (nothing of the fuzz
// sources needs it; the engine's queues, which use `Deque`, are not built).
// Should one of those files come to need another engine file, add it to
// `processingSources`. A plain `swift build` or `swift test` never sees the
// fuzz targets.
if Context.environment["WARMER_FUZZ"] == "1" {
    let processingSources = [
        "OutputEncoding.swift", "ImageFormat.swift", "ImageProcessor.swift", "ImageProcessor+Resize.swift",
        "ProcessingLimits.swift", "ThumbnailOptions.swift",
    ]
    let processingFolder = Context.packageDirectory + "/Sources/PipelineEngine/Processing"
    let otherFiles = (try? FileManager.default.contentsOfDirectory(atPath: processingFolder))?
        .filter { !processingSources.contains($0) } ?? []
    let fuzzTargets = ["ProcessingSpec", "URLList", "IntakeDocument"]
    package.dependencies = []
    package.products = fuzzTargets.map { .executable(name: "Fuzz\($0)", targets: ["Fuzz\($0)"]) }
    package.targets = [
        .target(
            name: "PipelineEngine", path: "Sources/PipelineEngine/Processing", exclude: otherFiles, sources: processingSources
        ),
        .target(name: "WarmerInput", dependencies: ["PipelineEngine"]),
        .target(name: "WarmerInputProperties", dependencies: ["WarmerInput"], path: "Fuzz/Properties"),
    ] + fuzzTargets.map {
        .executableTarget(name: "Fuzz\($0)", dependencies: ["WarmerInputProperties"], path: "Fuzz/Targets/\($0)")
    }
}
