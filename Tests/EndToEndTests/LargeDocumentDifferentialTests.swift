import Foundation
import RedisKit
import Scheduler
import Synchronization
import Testing
import TestSupport
import WarmerSupport
@testable import Warmer

/// A large intake document parsed by a worker (`IntakeParser.intakeDocuments`,
/// parsing.lua) ends exactly as when Redis decodes it: every document of the
/// intake fuzz corpus and a few at the size limits, padded with spaces past
/// the 32 KiB over which a worker parses, is pushed to two fresh paused
/// queues, one whose claims Redis expands alone and one whose claims leave
/// it to the worker's parser; claims run until nothing is staged. The two
/// queues must hold the same dead letters (code, message, document), the
/// same batches, the same jobs (their work fields) and the same events.
@Suite struct LargeDocumentDifferentialTests {
    @Test func aDocumentTheWorkerParsesEndsAsOneRedisDecodesAlone() async throws {
        let padding = [UInt8](repeating: UInt8(ascii: " "), count: 33_000)
        let documents = try Self.corpus() + Self.largeDocuments()
        // The worker's parser, counting the documents it parsed (Redis expands one that is not UTF-8 itself).
        let parsed = Mutex(0)
        var parser = IntakeParser.intakeDocuments(environment: [:])
        let parse = parser.parse
        parser.parse = { text in
            parsed.withLock { $0 += 1 }
            return parse(text)
        }
        let workerParser = parser
        let compared = documents.filter { $0.1 != Array("wake".utf8) }
        let utf8 = compared.count { !String(decoding: $0.1 + padding, as: UTF8.self).unicodeScalars.contains("\u{FFFD}") }
        // Each document on queues of its own: four lanes, a connection each, compare side by side.
        let lanes = 4
        let differences = try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    let client = RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(30))
                    var differences: [String] = []
                    for (name, bytes) in compared.enumerated().filter({ $0.offset % lanes == lane }).map(\.element) {
                        let document = bytes + padding
                        let redis = try await Self.outcome(of: document, parser: nil, client: client)
                        let worker = try await Self.outcome(of: document, parser: workerParser, client: client)
                        if redis != worker { differences.append("\(name):\n  Redis  \(redis)\n  worker \(worker)") }
                    }
                    return differences
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(differences.isEmpty, "\(differences.count) of \(documents.count):\n\(differences.joined(separator: "\n"))")
        #expect(documents.count > 100)
        #expect(parsed.withLock { $0 } == utf8 && utf8 > 100, "\(parsed.withLock { $0 }) parsed by the worker, \(utf8) UTF-8")
    }

    /// What a queue holds once a document is expanded: dead letters, batches, jobs and events, without ids and times.
    struct Outcome: Equatable, CustomStringConvertible {
        var dead: [[String: String]]
        var batches: [[String: String]]
        var work: [String]
        var events: [[String: String]]

        var description: String {
            "dead \(dead), batches \(batches), \(work.count) jobs, events \(events.map { $0["type"] ?? "?" })"
        }
    }

    /// Pushes `document` to a fresh paused queue, claims until it is all jobs, and reads the queue.
    static func outcome(of document: [UInt8], parser: IntakeParser?, client: RedisClient) async throws -> Outcome {
        var configuration = JobQueue.Configuration()
        configuration.intakeParser = parser
        let queue = try JobQueue(client: client, name: TestEnvironment.uniqueName("bigdiff"), configuration: configuration)
        try await queue.pause()
        // Binary-safe whatever the bytes: sent as hex, unpacked by Lua.
        let hex = document.hexString
        try await client.send([
            "EVAL", "return redis.call('RPUSH', KEYS[1], (ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)))",
            "1", queue.keys.intake, hex,
        ])
        for _ in 0..<200 {
            _ = try await queue.claim(upTo: 1, worker: "differential")
            let left = try await client.send(["LRANGE", queue.keys.intake, "0", "-1"]).array.compactMap(\.string)
            if left.allSatisfy({ $0 == "wake" }), try await queue.statistics().staged == 0 { break }
        }
        let dead = try await queue.deadLetters().map { $0.fields.filter { !["finishedAt", "id"].contains($0.key) } }
        var batches: [[String: String]] = []
        for id in try await client.send(["ZRANGE", queue.keys.batches, "0", "-1"]).array.compactMap(\.string) {
            let fields = try await client.send(["HGETALL", queue.keys.batch(id)]).fieldDictionary
            batches.append(fields.filter { $0.key != "createdAt" })
        }
        let work = try await client.send(["HKEYS", queue.keys.work]).array.compactMap(\.string).sorted()
        let events = try await client.send(["XRANGE", queue.keys.events, "-", "+"]).array.map { entry in
            entry.array.dropFirst().first?.fieldDictionary.filter { $0.key != "ts" } ?? [:]
        }
        return Outcome(dead: dead, batches: batches, work: work, events: events)
    }

    /// The committed documents of the intake fuzz target (seeds and crashers).
    static func corpus() throws -> [(String, [UInt8])] {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz")
        var documents: [(String, [UInt8])] = []
        for kind in ["Corpus", "Crashers"] {
            let folder = fuzz.appendingPathComponent(kind).appendingPathComponent("intake-document")
            guard FileManager.default.fileExists(atPath: folder.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where !name.hasPrefix(".") {
                documents.append((name, [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))))
            }
        }
        return documents
    }

    /// Documents at the size limits, and parts of one batch that disagree.
    static func largeDocuments() -> [(String, [UInt8])] {
        func urls(_ count: Int) -> String {
            (0..<count).map { "\"https://images.example/\($0).jpg\"" }.joined(separator: ",")
        }
        let texts: [(String, String)] = [
            ("10000-urls", #"{"v":1,"urls":[\#(urls(10_000))]}"#),
            ("10001-urls", #"{"v":1,"urls":[\#(urls(10_001))]}"#),
            ("10000-urls-total", #"{"v":1,"batch":"parts","total":20000,"group":"g","timeout":30,"urls":[\#(urls(10_000))]}"#),
            ("processed", #"{"v":1,"batch":"p","destination":"processed","processing":"resize(w:\"1\\u0000\")","priority":"high","urls":[\#(urls(500))]}"#),
            ("total-too-small", #"{"v":1,"batch":"small-total","total":10,"urls":[\#(urls(500))]}"#),
            ("not-a-string", #"{"v":1,"batch":"named","urls":[\#(urls(500)),1]}"#),
            ("unicode", #"{"v":1,"batch":"u","urls":["https://images.example/é\u00e9\ud83d\ude00.jpg",\#(urls(500))]}"#),
            ("invalid-utf8", #"{"v":1,"batch":"raw","urls":["https://images.example/\#u{FFFD}.jpg",\#(urls(500))]}"#),
        ]
        var invalidByte: [UInt8] = Array(#"{"v":1,"batch":"raw","urls":["https://images.example/"#.utf8)
        invalidByte.append(0xFF)
        invalidByte.append(contentsOf: #".jpg",\#(urls(500))]}"#.utf8)
        return texts.map { name, text in (name, Array(text.utf8)) } + [("invalid-byte", invalidByte)]
    }
}
