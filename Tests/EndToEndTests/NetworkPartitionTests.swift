import Foundation
import Testing
import TestSupport

/// A network partition loses nothing.
///
/// `scripts/partition-test.sh` runs Redis, an nginx origin and two `warmer
/// worker` processes as separate hosts in network namespaces it creates,
/// cuts one worker's link mid-batch and restores it after its leases
/// expired, and checks that its jobs complete on the other worker, that its
/// late finishes are refused by the lease token, that the counters are
/// exact, and that it claims again afterwards (the script's header has the
/// details). This test runs the script with the built `warmer` and reports
/// its checks; without network namespaces (not root, no kernel support) the
/// script says `SKIPPED: …` and the test is reported as skipped, not passed.
@Suite(.serialized)
struct NetworkPartitionTests {
    /// The script's exit status when network namespaces are unavailable.
    private static let skippedStatus: Int32 = 77

    @Test func cutOffWorkersJobsCompleteElsewhereAndItsLateFinishesAreRefused() async throws {
        let run = try await Self.runScript(timeout: .seconds(600))
        if run.status == Self.skippedStatus {
            let reason = run.output.split(separator: "\n").first { $0.hasPrefix("SKIPPED:") } ?? "SKIPPED (no reason given)"
            try Test.cancel(Comment(rawValue: String(reason)))
        }
        let failures = run.output.split(separator: "\n").filter { $0.hasPrefix("not ok") }
        #expect(run.status == 0, "scripts/partition-test.sh exited \(run.status):\n\(run.output)")
        #expect(failures.isEmpty, "failed checks:\n\(failures.joined(separator: "\n"))")
        #expect(run.output.split(separator: "\n").contains("PASS"), "\(run.output)")
        #expect(run.output.contains("ok - Redis refused w1's late finishes (lease token stale)"), "\(run.output)")
    }

    /// What the script printed (standard output and error, interleaved) and its exit status.
    struct ScriptRun {
        let status: Int32
        let output: String
    }

    /// Runs `scripts/partition-test.sh` with the `warmer` under test, for at
    /// most `timeout` (then SIGTERM: its trap removes its namespaces).
    static func runScript(timeout: Duration) async throws -> ScriptRun {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let log = try TestEnvironment.temporaryDirectory("partition").appendingPathComponent("output.log")
        defer { try? FileManager.default.removeItem(at: log.deletingLastPathComponent()) }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }

        var environment = ProcessInfo.processInfo.environment
        environment["WARMER_BIN"] = try WarmerProcess.binary().path
        // A file, not a pipe: nothing has to read while the script runs.
        let process = try ChildProcess(
            "/usr/bin/env", ["bash", repository.appendingPathComponent("scripts/partition-test.sh").path],
            environment: environment, currentDirectory: repository, standardOutput: .file(output),
            standardError: .file(output)
        )

        // Polled: waiting must not block a thread of the cooperative pool.
        let exited = await eventually(timeout: timeout, pollingEvery: .milliseconds(200)) { !process.isRunning }
        if !exited {
            process.send(SIGTERM)
            _ = await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(200)) { !process.isRunning }
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard exited else {
            throw HarnessError("scripts/partition-test.sh did not finish within \(timeout); stopped it. Output:\n\(text)")
        }
        return ScriptRun(status: process.exit?.status ?? -1, output: text)
    }
}
