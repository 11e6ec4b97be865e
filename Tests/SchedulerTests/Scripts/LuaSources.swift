import Foundation
@testable import Scheduler

/// The `.lua` files of the checkout, read from disk (the same text
/// EmbedTextPlugin compiles into `EmbeddedText`).
enum LuaSources {
    /// The `.lua` files directly in `folder` (under Sources/Scheduler), by name without `.lua`.
    static func files(in folder: String) throws -> [String: LuaFile] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/Scheduler/\(folder)").standardizedFileURL
        var files: [String: LuaFile] = [:]
        for entry in try FileManager.default.contentsOfDirectory(atPath: url.path) where entry.hasSuffix(".lua") {
            let name = String(entry.dropLast(4))
            let bytes = try Data(contentsOf: url.appendingPathComponent(entry))
            files[name] = LuaFile(name, String(decoding: bytes, as: UTF8.self))
        }
        return files
    }

    /// The libraries (`Queue/Lua/includes/`).
    static func libraries() throws -> [String: LuaFile] {
        try files(in: "Queue/Lua/includes")
    }

    /// Every `.lua` file: the libraries, the queue's transitions and the worker registry's scripts.
    static func all() throws -> [String: LuaFile] {
        try ["Queue/Lua/includes", "Queue/Lua", "Workers/Lua"].reduce(into: [:]) { all, folder in
            all.merge(try files(in: folder)) { first, _ in first }
        }
    }
}
