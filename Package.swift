// swift-tools-version:6.0
import PackageDescription

/// Warmer: a distributed image cache-warming service.
///
/// Module boundaries (see docs/architecture.md):
/// - `PipelineEngine` loads one image request end to end (libcurl, libvips). Knows nothing of Redis.
/// - `Scheduler` is the Redis queue and event streams (hiredis). Knows nothing of images.
/// - `WarmerInput` parses what producers send (processing specs, URL lists,
///   intake documents): pure code.
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
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // libvips is loaded at run time (dlopen), not linked: see Sources/CVips/shim.h.
        .systemLibrary(name: "CVips", providers: [.apt(["libvips42"])]),

        .target(
            name: "PipelineEngine",
            dependencies: [
                "CCurl", "CVips",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Scheduler",
            dependencies: ["CHiredis", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(name: "WarmerInput", dependencies: ["PipelineEngine"]),
        .executableTarget(
            name: "Warmer",
            dependencies: [
                "PipelineEngine", "Scheduler", "WarmerInput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "PipelineEngineTests", dependencies: ["PipelineEngine", "TestSupport"]),
        .testTarget(name: "SchedulerTests", dependencies: ["Scheduler", "TestSupport"]),
        .testTarget(name: "WarmerTests", dependencies: ["Warmer", "PipelineEngine", "Scheduler", "WarmerInput", "TestSupport"]),
        .testTarget(
            name: "WarmerInputTests",
            dependencies: ["WarmerInput", "PipelineEngine", "Scheduler", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
