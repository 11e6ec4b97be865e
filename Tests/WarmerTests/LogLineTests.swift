import Foundation
import Logging
import Testing
@testable import Warmer
import WarmerSupport

/// How `WarmerLogHandler` renders and writes a line, without a process.
struct LogLineTests {
    @Test func jsonLinesEscapeWhatJSONRequiresAndKeepTheFixedFieldsFirst() throws {
        // Given a message and values with quotes, backslashes, line breaks
        // and a control character, and a metadata key named like a fixed field
        let line = LogLine(
            timestamp: "2026-11-25T11:00:00.123Z", level: .warning, component: "queue",
            message: "job \"x\" failed\nagain", metadata: [
                "url": "http://h/a\\b", "message": "tab\there \u{01}", "code": "http_404",
                "list": .array(["a", .stringConvertible(2)]), "nested": .dictionary(["k": "v"]),
            ]
        )

        // When rendered as JSON
        let json = line.json

        // Then it is one line that parses back to the same values
        #expect(!json.contains("\n"))
        #expect(json.hasPrefix(#"{"ts":"2026-11-25T11:00:00.123Z","level":"warning","component":"queue","message":"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "job \"x\" failed\nagain")
        #expect(object["metadata.message"] as? String == "tab\there \u{01}")
        #expect(object["url"] as? String == "http://h/a\\b")
        #expect(object["list"] as? [String] == ["a", "2"])
        #expect(object["nested"] as? [String: String] == ["k": "v"])
        // …with the metadata an operator scans for first
        let code = try #require(json.range(of: "\"code\""))
        let list = try #require(json.range(of: "\"list\""))
        #expect(code.lowerBound < list.lowerBound)
    }

    @Test func textLinesQuoteValuesWithSpacesAndStayOnOneLine() {
        let line = LogLine(
            timestamp: "2026-11-25T11:00:00.123Z", level: .info, component: "worker",
            message: "two\nlines", metadata: ["zeta": "a b", "job": "7", "empty": "", "batch": "b1", "eq": "x=y"]
        )
        #expect(line.text == #"2026-11-25T11:00:00.123Z info [worker] two\nlines job=7 batch=b1 empty="" eq="x=y" zeta="a b""#)
    }

    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(UTCTime.now().wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
    }

    @Test func workerStartTimesAreTheUTCTextShortened() {
        #expect(WorkersCommand.startTime(1_795_604_400_123) == "2026-11-25 11:00:00")
        #expect(WorkersCommand.startTime(-1) == "-")
    }

    @Test func theHandlerMasksPasswordsAndNamesTheComponentAfterTheLabel() throws {
        let (writer, file) = try Self.fileWriter()
        defer { try? FileManager.default.removeItem(at: file) }
        var logger = Logger(label: "warmer.worker") { label in
            WarmerLogHandler(label: label, format: .json, level: .info, writer: writer)
        }
        logger.debug("not written")
        logger.info("failed", metadata: ["url": "http://alice:hunter2@127.0.0.1/a.jpg"])
        logger[metadataKey: "component"] = "leases"
        logger.warning("error quoting https://bob:pw@127.0.0.1:9/x")

        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""component":"worker","message":"failed","url":"http://alice:***@127.0.0.1/a.jpg""#) == true)
        #expect(lines.last?.contains(#""component":"leases","message":"error quoting https://bob:***@127.0.0.1:9/x""#) == true)
        #expect(!lines.joined().contains("hunter2") && !lines.joined().contains("bob:pw"))
    }

    @Test func linesWrittenFromManyThreadsNeverInterleave() throws {
        // Given lines far longer than a pipe's atomic write (4 KiB)
        let (writer, file) = try Self.fileWriter()
        defer { try? FileManager.default.removeItem(at: file) }
        let threads = 8, perThread = 50

        // When eight threads write at once
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let body = String(repeating: Character(String(thread)), count: 20_000)
            for _ in 0..<perThread { writer.write("<\(body)>") }
        }

        // Then every line is whole: one thread's line, byte for byte, so the
        // file is a sequence of whole lines of one length (compared as bytes:
        // 8 MB of Characters cost seconds in a debug build)
        let whole = Set((0..<threads).map { Data("<\(String(repeating: Character(String($0)), count: 20_000))>\n".utf8) })
        let text = try Data(contentsOf: file), length = 20_003
        #expect(text.count == threads * perThread * length)
        let lines = stride(from: 0, to: text.count, by: length).map { text[$0..<min($0 + length, text.count)] }
        #expect(lines.allSatisfy { whole.contains($0) })
    }

    /// A writer to a new temporary file.
    static func fileWriter() throws -> (LogLineWriter, URL) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)")
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        try #require(descriptor >= 0)
        return (LogLineWriter(descriptor: descriptor), file)
    }
}
