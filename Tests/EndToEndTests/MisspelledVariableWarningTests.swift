import Testing
import TestSupport

/// A real `warmer` warns at start of a `WARMER_*` variable that is one or
/// two letters from a setting's (the matching is tested in WarmerTests'
/// `MisspelledVariablesTests`).
@Suite struct MisspelledVariableWarningTests {
    @Test func aCommandWarnsOfAMisspelledVariableAtStart() async throws {
        let result = try await warmer(["status", "--redis-url", "redis://127.0.0.1:\(try freeLoopbackPort())", "--redis-wait", "0"],
                                      environment: ["WARMER_QUEEU": "x"])
        #expect(result.standardError.contains("ignoring environment variable WARMER_QUEEU: no such setting; did you mean WARMER_QUEUE?"),
                "\(result)")
    }
}
