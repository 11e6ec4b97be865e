import Foundation
import WarmerInputProperties

/// The committed inputs of the fuzz targets: seeds (`Fuzz/Corpus/<target>/`)
/// and regression inputs found by fuzzing (`Fuzz/Crashers/<target>/`).
enum FuzzCorpus {
    /// The repository's `Fuzz` folder.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz", isDirectory: true)

    /// Every file of `target` under `kind` (`Corpus` or `Crashers`): (name, bytes), sorted by name.
    static func files(of target: FuzzTarget, in kind: String) throws -> [(name: String, bytes: [UInt8])] {
        let directory = folder.appendingPathComponent(kind).appendingPathComponent(target.folder)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().compactMap { name in
            guard !name.hasPrefix(".") else { return nil }
            return (name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    /// Seeds and regression inputs of `target`.
    static func allFiles(of target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        try files(of: target, in: "Corpus") + files(of: target, in: "Crashers")
    }
}
