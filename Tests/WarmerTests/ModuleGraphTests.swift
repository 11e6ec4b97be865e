import Foundation
import Testing
import TestSupport

/// The module graph of Package.swift points one way, down the layers of
/// docs/architecture.md, and only the Kit targets see a C library: the
/// compiler then keeps every raw pointer of libcurl, libvips, hiredis and
/// libcrypto inside CurlKit, VipsKit, RedisKit and DigestKit.
@Suite("Module graph")
struct ModuleGraphTests {
    /// Each target's layer: a target may depend only on lower layers.
    static let layers: [String: Int] = [
        "CCurl": 0, "CVips": 0, "CHiredis": 0, "CCrypto": 0,
        // DigestKit, a Kit of its own, sits below the others: RedisKit names scripts by their SHA-1.
        "WarmerSupport": 1, "DigestKit": 1,
        "CurlKit": 2, "VipsKit": 2, "RedisKit": 2,
        "PipelineEngine": 3, "Scheduler": 3,
        "WarmerInput": 4,
        // The worker runtime, then the HTTP server (which warms misses as a worker does).
        "WarmerWorker": 5,
        "WarmerServer": 6,
        // The executable: commands, configuration, the terminal board, logging set-up.
        "Warmer": 7,
    ]
    /// The build's own tools (Plugins/): they run while building, are no
    /// module of the product, and depend on nothing of it.
    static let buildTools: [String: Set<String>] = ["EmbedText": [], "EmbedTextPlugin": ["EmbedText"]]
    /// Which Kit wraps each C module: the only target that may depend on it.
    static let wrappers = ["CCurl": "CurlKit", "CVips": "VipsKit", "CHiredis": "RedisKit", "CCrypto": "DigestKit"]

    @Test func everyDependencyPointsToALowerLayer() throws {
        // Given the targets of Sources/ and their dependencies on each other
        let graph = PackageManifest.targetDependencies(in: try RepositoryFiles.text("Package.swift"))
        let testSupport: Set = ["TestSupport", "PipelineEngineFakes", "SchedulerFakes", "WarmerInputProperties"]
        let productTargets = graph.keys.filter {
            !$0.hasSuffix("Tests") && !testSupport.contains($0) && Self.buildTools[$0] == nil
        }
        #expect(Set(productTargets) == Set(Self.layers.keys), "every target of Sources/ has a layer here")
        #expect(graph.filter { Self.buildTools[$0.key] != nil } == Self.buildTools)
        // Then every target is in a layer, and depends on lower layers only
        for (target, dependencies) in graph {
            guard let layer = Self.layers[target] else { continue }
            for dependency in dependencies {
                let lower = Self.layers[dependency].map { $0 < layer } ?? false
                #expect(lower, "\(target) (layer \(layer)) depends on \(dependency) (layer \(Self.layers[dependency].map(String.init) ?? "none"))")
            }
        }
    }

    @Test func onlyEachKitDependsOnItsCLibrary() throws {
        let graph = PackageManifest.targetDependencies(in: try RepositoryFiles.text("Package.swift"))
        for (target, dependencies) in graph {
            for (module, kit) in Self.wrappers where dependencies.contains(module) {
                #expect(target == kit, "\(target) depends on \(module); only \(kit) may")
            }
        }
    }

    @Test func noSourceOutsideTheKitsImportsACLibrary() throws {
        let sources = try RepositoryFiles.tracked().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        let offenders = try sources.filter { path in
            guard !Self.wrappers.values.contains(where: { path.hasPrefix("Sources/\($0)/") }) else { return false }
            let text = try RepositoryFiles.text(path)
            return Self.wrappers.keys.contains { text.contains("import \($0)\n") }
        }
        #expect(offenders == [])
    }

    /// Modules of the toolchain, which no manifest declares.
    static let toolchainModules: Set = ["Foundation", "Dispatch", "Glibc", "Synchronization", "_Concurrency"]

    @Test func everyModuleASourceImportsIsDeclaredByItsTarget() throws {
        // Given each target's local dependencies and products of other packages
        let manifest = try RepositoryFiles.text("Package.swift")
        let targets = PackageManifest.targetDependencies(in: manifest)
        let products = PackageManifest.productDependencies(in: manifest)
        let sources = try RepositoryFiles.tracked().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        // Then every module a source file imports is its own target's, a
        // declared dependency, or the toolchain's: a module that only comes
        // in through another package's dependencies could vanish with it
        var undeclared: [String] = []
        for path in sources {
            let target = path.split(separator: "/")[1]
            guard let local = targets[String(target)] else { continue }
            let declared = local.union(products[String(target)] ?? []).union(Self.toolchainModules)
            // (Only lines that mention an import reach the regex: matching each of
            // some 40,000 lines took seconds in a debug build.)
            for line in try RepositoryFiles.text(path).split(separator: "\n") where line.contains("import ") {
                guard let match = line.wholeMatch(of: /(?:@preconcurrency |package |public )?import ([A-Za-z0-9_]+)/) else { continue }
                if !declared.contains(String(match.1)) { undeclared.append("\(path): \(match.1)") }
            }
        }
        #expect(undeclared == [])
    }

    @Test func theManifestReaderFindsTargetsAndTheirLocalDependencies() {
        let manifest = """
            targets: [
                .systemLibrary(name: "CLib", pkgConfig: "lib"),
                .target(name: "Kit", dependencies: ["CLib", .product(name: "Logging", package: "swift-log")]),
                .executableTarget(
                    name: "Tool",
                    dependencies: [
                        "Kit",
                        .product(name: "ArgumentParser", package: "swift-argument-parser"),
                    ]
                ),
                .testTarget(name: "KitTests", dependencies: ["Kit"]),
            ]
            // MARK: Fuzzing
                .target(name: "Ignored", dependencies: ["Tool"]),
            """
        #expect(PackageManifest.targetDependencies(in: manifest) == [
            "CLib": [], "Kit": ["CLib"], "Tool": ["Kit"], "KitTests": ["Kit"],
        ])
    }
}
