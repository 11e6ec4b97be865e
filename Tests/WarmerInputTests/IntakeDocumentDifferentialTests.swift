import Foundation
import RedisKit
import Scheduler
import TestSupport
import Testing
import WarmerInput
import WarmerInputProperties
import WarmerSupport

/// `IntakeDocument` says what Redis says: every document of the fuzz corpus
/// (seeds, edge cases, crashers) and a few too large to fuzz go through the
/// Swift validator and through a real intake expansion — pushed with RPUSH,
/// expanded by a claim — and the two must agree: the same dead letter
/// (`error`, `message`) for a refused document, and for an accepted one a
/// batch with the document's total, priority, destination and processing.
/// `WARMER_DIFFERENTIAL_CORPUS=FOLDER` adds the files of FOLDER (docs/testing.md).
@Suite struct IntakeDocumentDifferentialTests {
    @Test func theSwiftValidatorAndTheRedisExpansionAgreeOnEveryDocument() async throws {
        var documents = try FuzzCorpus.allFiles(of: .intakeDocument)
        documents += Self.largeDocuments()
        // More documents, e.g. what a fuzzer generated: WARMER_DIFFERENTIAL_CORPUS=.build-fuzz/corpus/intake-document
        if let folder = ProcessInfo.processInfo.environment["WARMER_DIFFERENTIAL_CORPUS"], !folder.isEmpty {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(!names.isEmpty, "\(folder) is empty")
            documents += try names.map { ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent($0)))) }
        }
        // `wake` is the idle workers' wake-up marker, which the expansion skips.
        documents.removeAll { $0.bytes == Array("wake".utf8) }
        let client = RedisClient(url: try RedisURL(parsing: TestEnvironment.redisURL()), timeout: .seconds(10))
        var disagreements: [String] = []
        for document in documents {
            let redis = try await Self.expand(document.bytes, using: client)
            let swift: Verdict
            do {
                swift = .accepted(try IntakeDocument(parsing: document.bytes).expectedBatch)
            } catch {
                swift = .refused(code: error.code, message: error.message)
            }
            if swift != redis { disagreements.append("\(document.name): Swift \(swift), Redis \(redis)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(documents.count): \(disagreements.joined(separator: "\n"))")
        #expect(documents.count > 100)
    }

    /// What became of a document.
    enum Verdict: Equatable, CustomStringConvertible {
        /// Expanded into a batch with these fields.
        case accepted(Batch)
        /// Dead-lettered with this code and message.
        case refused(code: String, message: String)

        var description: String {
            switch self {
            case .accepted(let batch): "accepted \(batch)"
            case .refused(let code, let message): "refused \(code): \(message)"
            }
        }
    }

    /// The batch fields a valid document sets (on a queue of its own, so the batch is new).
    struct Batch: Equatable {
        var id, total, priority, destination, processing: String
    }

    /// Pushes `document` (any bytes) to a fresh queue's intake list, lets a
    /// claim expand it, and reads what came of it.
    static func expand(_ document: [UInt8], using client: RedisClient) async throws -> Verdict {
        let queue = try JobQueue(client: client, name: TestEnvironment.uniqueName("diff"))
        // Binary-safe whatever the bytes: sent as hex, unpacked by Lua.
        let hex = document.hexString
        try await client.send([
            "EVAL", "return redis.call('RPUSH', KEYS[1], (ARGV[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)))",
            "1", queue.keys.intake, hex,
        ])
        _ = try await queue.claim(upTo: 1, worker: "differential-test")
        // The document was taken (an expansion leaves a wake-up marker for idle workers).
        let left = try await client.send(["LRANGE", queue.keys.intake, "0", "-1"]).array.compactMap(\.string)
        #expect(left.allSatisfy { $0 == "wake" })
        let sequence = try await client.send(["GET", queue.keys.sequence]).string ?? "0"
        let dead = try await client.send(["HGETALL", queue.keys.job("doc-\(sequence)")]).fieldDictionary
        if !dead.isEmpty {
            return .refused(code: dead["error"] ?? "?", message: dead["message"] ?? "?")
        }
        let batches = try await client.send(["ZRANGE", queue.keys.batches, "0", "-1"]).array.compactMap(\.string)
        guard batches.count == 1, let id = batches.first else { return .refused(code: "no batch", message: "\(batches)") }
        let fields = try await client.send(["HGETALL", queue.keys.batch(id)]).fieldDictionary
        return .accepted(Batch(id: id, total: fields["total"] ?? "?", priority: fields["priority"] ?? "?",
                               destination: fields["destination"] ?? "?", processing: fields["processing"] ?? "?"))
    }

    /// Documents at the size limits, too large for the fuzzers' 4 KiB inputs.
    static func largeDocuments() -> [(name: String, bytes: [UInt8])] {
        func urls(_ count: Int) -> String {
            (0..<count).map { "\"https://images.example/\($0).jpg\"" }.joined(separator: ",")
        }
        return [
            ("10000-urls", #"{"v":1,"urls":[\#(urls(10_000))]}"#),
            ("10001-urls", #"{"v":1,"urls":[\#(urls(10_001))]}"#),
            ("10000-urls-total", #"{"v":1,"total":10000,"urls":[\#(urls(10_000))]}"#),
            ("10001-urls-not-strings", #"{"v":1,"urls":[\#(urls(10_000)),1]}"#),
        ].map { ($0.0, Array($0.1.utf8)) }
    }
}

extension IntakeDocument {
    /// The batch the expansion of this document makes on an empty queue.
    var expectedBatch: IntakeDocumentDifferentialTests.Batch {
        .init(id: batch ?? "intake-1", total: String(total ?? urls.count), priority: priority ?? "normal",
              destination: destination ?? "disk", processing: processing ?? "")
    }
}
