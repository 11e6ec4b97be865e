import Foundation
import RedisKit
import Testing
import TestSupport
@testable import Scheduler

/// The Swift masker (`URLCredentials.masked`) and the Lua one (`masked` in
/// `includes/masking.lua`) agree on every text: tens of thousands of generated texts,
/// built from the bytes that matter to the rule (`:`, `/`, `\`, `@`, `?`,
/// `#`, quotes, spaces) around real-looking URLs, each masked by both. And
/// whatever surrounds it, a password never survives either.
@Suite("URL credentials differential")
struct URLCredentialsDifferentialTests {
    /// Texts per run; `WARMER_MASK_DIFFERENTIAL_COUNT` raises it for a longer hunt.
    private static var count: Int {
        ProcessInfo.processInfo.environment["WARMER_MASK_DIFFERENTIAL_COUNT"].flatMap(Int.init) ?? 20_000
    }

    @Test func swiftAndLuaMaskEveryGeneratedTextAlike() async throws {
        var generator = MaskingTextGenerator(seed: 0x5EC0_0023)
        let texts = (0..<Self.count).map { _ in generator.text() }
        let lua = try await Self.luaMasked(texts)
        var differences: [String] = []
        for (text, fromLua) in zip(texts, lua) where URLCredentials.masked(text) != fromLua {
            differences.append("\(text.debugDescription): Swift \(URLCredentials.masked(text).debugDescription), Lua \(fromLua.debugDescription)")
        }
        #expect(lua.count == texts.count)
        #expect(differences.isEmpty, "\(differences.count) differ, first: \(differences.prefix(5).joined(separator: "\n"))")
    }

    @Test func noPasswordSurvivesWhateverSurroundsItsURL() async throws {
        var generator = MaskingTextGenerator(seed: 0xBADC_0FFE)
        let cases = (0..<Self.count / 4).map { _ in generator.textWithSecretURL() }
        let lua = try await Self.luaMasked(cases.map(\.text))
        var leaks: [String] = []
        for ((text, secret), fromLua) in zip(cases, lua) {
            let fromSwift = URLCredentials.masked(text)
            if fromSwift.contains(secret) || fromLua.contains(secret) { leaks.append("\(text.debugDescription) → \(fromSwift.debugDescription)") }
        }
        #expect(leaks.isEmpty, "\(leaks.count) leak, first: \(leaks.prefix(5).joined(separator: "\n"))")
    }

    @Test func maskingIsIdempotent() {
        var generator = MaskingTextGenerator(seed: 0x1D3)
        for _ in 0..<Self.count / 4 {
            let once = URLCredentials.masked(generator.text())
            #expect(URLCredentials.masked(once) == once, "\(once.debugDescription)")
        }
    }

    /// Each text masked by the queue's Lua, in the order given (EVAL, 500 texts a call).
    static func luaMasked(_ texts: [String]) async throws -> [String] {
        let client = try makeClient()
        let lua = "-- @include context masking\nlocal out = {}\nfor i = FIRST, #ARGV do out[#out + 1] = masked(ARGV[i]) end\nreturn out"
        let script = QueueScript(LuaFile("masked", lua)).script.source
        var masked: [String] = []
        for start in stride(from: 0, to: texts.count, by: 500) {
            let slice = Array(texts[start..<min(start + 500, texts.count)])
            let reply = try await client.send(["EVAL", script, "0", "p:", "1", "1", "1", "1", "1", "1", "1", "0", "", "0"] + slice)
            guard case .array(let items) = reply else {
                Issue.record("not an array: \(reply)")
                return masked
            }
            for item in items {
                guard case .string(let text) = item else {
                    Issue.record("not a string: \(item)")
                    return masked
                }
                masked.append(text)
            }
        }
        return masked
    }
}
