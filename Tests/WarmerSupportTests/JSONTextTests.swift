import Foundation
import Testing
import WarmerSupport

/// `JSONText`, the one hand-written JSON string escaper (events and log lines).
@Suite struct JSONTextTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        #expect(JSONText.quoted("a\"b\\c\nd\re\tf\u{01}g\u{1F}") == #""a\"b\\c\nd\re\tf\u0001g\u001f""#)
    }

    @Test func writesEverythingElseAsItIs() {
        #expect(JSONText.quoted("é/😀\u{7F}") == "\"é/😀\u{7F}\"")
    }

    @Test func appendsAfterWhatTheLineHolds() {
        var line = "{\"k\":"
        JSONText.append("v", to: &line)
        #expect(line == #"{"k":"v""#)
    }

    @Test func whatItWritesParsesBackToTheText() throws {
        let text = String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }) + "é😀"
        let parsed = try JSONSerialization.jsonObject(with: Data(JSONText.quoted(text).utf8), options: .fragmentsAllowed)
        #expect(parsed as? String == text)
    }
}
