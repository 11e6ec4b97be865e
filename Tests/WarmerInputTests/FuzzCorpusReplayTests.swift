import Testing
import WarmerInputProperties

/// Every committed fuzz input — seeds, and every crasher ever found — goes
/// through its target's property on every `swift test`, so a fixed crash
/// stays fixed without libFuzzer (scripts/fuzz.sh explores further).
@Suite struct FuzzCorpusReplayTests {
    @Test(arguments: FuzzTarget.allCases)
    func everyCommittedInputKeepsItsTargetsProperty(_ target: FuzzTarget) throws {
        let files = try FuzzCorpus.allFiles(of: target)
        #expect(files.count >= 5, "the \(target.folder) corpus is missing")
        for file in files {
            #expect(target.violation(for: file.bytes) == nil, "\(target.folder)/\(file.name)")
        }
    }

    @Test func theSpecsThatKilledEveryWorkerAreRegressionInputs() throws {
        // Issue 10: '=', 'resize=,' and 'resize=,,' crashed the parser (SIGILL).
        let crashers = try FuzzCorpus.files(of: .processingSpec, in: "Crashers").map { String(decoding: $0.bytes, as: UTF8.self) }
        for spec in ["=", "resize=,", "resize=,,"] {
            #expect(crashers.contains(spec), "\(spec)")
        }
    }
}
