import Foundation
import Scheduler
import Testing
import TestSupport

/// `warmer dead list --json`: one object per dead letter with typed fields
/// (numbers as numbers, batches as an array, ISO 8601 times beside the
/// epoch milliseconds), every one of them documented, and none of the job
/// hash's bookkeeping.
@Suite(.serialized)
struct DeadListJSONTests {
    @Test func deadLettersAreListedAsTypedDocumentedFields() async throws {
        // Given a failed job (404), a job that could not run (ftp URL) and a
        // document that is not JSON, dead-lettered by a real worker
        let queue = try QueueProbe()
        let cache = try TestEnvironment.temporaryDirectory("cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        let missing = try Origin.missingURL()
        let ftp = try #require(URL(string: "ftp://example.com/a.jpg"))
        let malformed = "{not json"
        let records: [[String: JSONValue]] = try await withWorkers(queue: queue, cacheDirectory: cache) { workers in
            // (an intake document: `warmer enqueue` refuses the ftp URL itself)
            let batch = TestEnvironment.uniqueName("dead-json")
            let urls = [missing.absoluteString, ftp.absoluteString]
            let valid = String(decoding: try JSONSerialization.data(withJSONObject: ["v": 1, "batch": batch, "urls": urls]), as: UTF8.self)
            try await queue.send(["RPUSH", queue.queue.keys.intake, valid, malformed])
            try await queue.send(["RPUSH", queue.queue.keys.prefix + "commands", #"{"v":1,"op":"explode"}"#])
            let status = try await queue.waitUntilFinished(batch: batch)
            #expect(status.failed == 1 && status.dead == 1, "\(status)\n\(workers.logs)")
            let documented = await eventually {
                let letters = (try? await queue.queue.deadLetters()) ?? []
                return letters.contains { $0.isDocument && !$0.isControlDocument } && letters.contains(where: \.isControlDocument)
            }
            try #require(documented, "the document was not dead-lettered:\n\(workers.logs)")

            // When they are listed as JSON
            let listed = try await warmer(["dead", "list", "--json"] + queue.redisArguments)
            #expect(listed.status == 0, "\(listed)")

            // Then each line is one JSON object
            return try listed.outputLines.map { line in
                try JSONDecoder().decode([String: JSONValue].self, from: Data(line.utf8))
            } + [["batch": .string(batch)]]
        }
        let batch = try #require(records.last?["batch"]?.string)
        let letters = records.dropLast()
        #expect(letters.count == 4, "\(letters)")

        // …the failed job: strings for ids, URLs and codes, numbers for
        // attempts and times, its batch in an array
        let failed = try #require(letters.first { $0["error"]?.string == "http_404" }, "\(letters)")
        #expect(failed["kind"]?.string == "job" && failed["state"]?.string == "failed", "\(failed)")
        #expect(failed["url"]?.string == missing.absoluteString, "\(failed)")
        #expect(failed["batches"]?.strings == [batch], "\(failed)")
        #expect((failed["id"]?.string)?.isEmpty == false && failed["message"]?.string != nil, "\(failed)")
        #expect(failed["attempts"]?.number == 1, "attempts is a number: \(failed)")
        #expect(failed["worker"]?.string != nil && failed["destination"]?.string == "disk", "\(failed)")
        for time in ["enqueuedAt", "claimedAt", "finishedAt", "deadLetteredAt"] {
            try Self.expectTime(time, in: failed)
        }
        // …the job that could not run: dead (its worker found the URL unusable)
        let dead = try #require(letters.first { $0["error"]?.string == "invalid_url" }, "\(letters)")
        #expect(dead["state"]?.string == "dead" && dead["url"]?.string == ftp.absoluteString, "\(dead)")
        #expect(dead["attempts"]?.number == 1 && dead["batches"]?.strings == [batch], "\(dead)")
        try Self.expectTime("deadLetteredAt", in: dead)
        // …the document: its text, no batch
        let document = try #require(letters.first { $0["kind"]?.string == "document" }, "\(letters)")
        #expect(document["error"]?.string == "malformed_document" && document["document"]?.string == malformed, "\(document)")
        #expect((document["id"]?.string)?.hasPrefix("doc-") == true && document["batches"]?.strings == [], "\(document)")
        try Self.expectTime("finishedAt", in: document)
        // …the control document: told apart from intake documents
        let control = try #require(letters.first { $0["kind"]?.string == "control" }, "\(letters)")
        #expect(control["error"]?.string == "invalid_document" && control["document"]?.string?.contains("explode") == true, "\(control)")

        // …and every field is one docs/wire-format.md's "Dead letters"
        // documents: no `lease`, `score`, `claims`, `b:BATCH`…
        let documented = try Self.documentedFields()
        for letter in letters {
            let undocumented = Set(letter.keys).subtracting(documented)
            #expect(undocumented.isEmpty, "undocumented fields \(undocumented.sorted()) in \(letter)")
            #expect(!letter.keys.contains { $0.hasPrefix("b:") || ["lease", "score", "claims", "aging"].contains($0) }, "\(letter)")
        }
    }

    /// `name` is epoch milliseconds, and `nameUTC` the same instant in ISO 8601 UTC.
    static func expectTime(_ name: String, in letter: [String: JSONValue], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let milliseconds = try #require(letter[name]?.number, "\(name) is not a number: \(letter)", sourceLocation: sourceLocation)
        let text = try #require(letter[name + "UTC"]?.string, "no \(name)UTC: \(letter)", sourceLocation: sourceLocation)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: text), "\(text) is not ISO 8601", sourceLocation: sourceLocation)
        #expect(text.hasSuffix("Z") && Int((date.timeIntervalSince1970 * 1000).rounded()) == milliseconds,
                "\(name) \(milliseconds) vs \(text)", sourceLocation: sourceLocation)
    }

    /// The fields docs/wire-format.md's "Dead letters" section lists: the
    /// backquoted names in the first column of its table.
    static func documentedFields() throws -> Set<String> {
        let text = try String(contentsOf: TestEnvironment.repositoryRoot.appendingPathComponent("docs/wire-format.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Dead letters").dropFirst().first?
            .components(separatedBy: "\n## ").first, "no Dead letters section")
        var fields: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let firstColumn = line.split(separator: "|").first ?? ""
            for match in firstColumn.matches(of: /`([A-Za-z]+)`/) { fields.insert(String(match.output.1)) }
        }
        return fields
    }
}

/// One JSON value, decoded by its JSON type: a string of digits is a
/// string, never a number.
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case string(String), number(Double), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    /// A whole number, as an `Int`.
    var number: Int? { if case .number(let value) = self, value == value.rounded() { Int(value) } else { nil } }
    /// An array of strings.
    var strings: [String]? {
        guard case .array(let values) = self else { return nil }
        let strings = values.compactMap(\.string)
        return strings.count == values.count ? strings : nil
    }

    var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .number(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .array(let values): "\(values)"
        case .object(let object): "\(object)"
        case .null: "null"
        }
    }
}
