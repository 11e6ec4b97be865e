import Foundation
import Synchronization
import Testing
import TestSupport

/// The harness's process spawner (`ChildProcess`): what every test that
/// runs `warmer`, `redis-server` or a script relies on to see the exit and
/// the end of the output of each, however many tests start processes at once.
struct ChildProcessTests {
    /// The descriptors above 2 of process `pid` that are pipes or sockets.
    private static func pipesAndSockets(of pid: Int32) -> [String] {
        let folder = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap(Int32.init).filter { $0 > 2 }.compactMap { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                  target.hasPrefix("pipe:") || target.hasPrefix("socket:") else { return nil }
            return "\(descriptor) -> \(target)"
        }
    }

    @Test func childrenStartedAtOnceFromManyThreadsInheritNoPipeOrSocket() async throws {
        // Given 8 threads each starting 25 children with piped input and
        // output at the same time (each spawn opens pipes while the others
        // spawn: with Foundation's Process, 15 to 30 of the 200 children
        // inherited other children's pipes or exit sockets, and would have
        // kept those "running" while they lived)
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LC_ALL": "C"]
        let inherited = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let children = Mutex<[ChildProcess]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for _ in 0..<25 {
                        do {
                            let child = try ChildProcess("/bin/sleep", ["30"], environment: environment,
                                                         standardInput: .pipe, standardOutput: .pipe)
                            // posix_spawn returns once the child has exec'd: its table is final.
                            let extra = Self.pipesAndSockets(of: child.processIdentifier)
                            child.send(SIGKILL)
                            children.withLock { $0.append(child) }
                            if !extra.isEmpty { inherited.withLock { $0.append(extra.joined(separator: ", ")) } }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
        let reaped = await eventually { children.withLock { $0.allSatisfy { !$0.isRunning } } }
        // Then every child started, and none holds a pipe or socket beyond its standard streams
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(children.withLock { $0.count } == 200 && reaped)
        #expect(inherited.withLock { $0 }.isEmpty, "children inherited: \(inherited.withLock { $0 })")
    }

    @Test func aShortChildsExitIsSeenWhileLongLivedOnesStartBesideIt() async throws {
        // Given 4 threads starting 25 short commands each while 4 others
        // start 25 long-lived children each (as tests start `warmer` commands
        // while other tests start workers and redis-servers). With
        // Foundation's Process, 1 to 23 of the 100 short commands exited
        // (zombies) but stayed "running" for as long as the long-lived
        // child that had inherited their exit socket lived.
        let holders = Mutex<[ChildProcess]>([])
        let shorts = Mutex<[ChildProcess]>([])
        let failures = Mutex<[String]>([])
        defer { for holder in holders.withLock({ $0 }) { holder.send(SIGKILL) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for index in 0..<8 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for _ in 0..<25 {
                        do {
                            if index.isMultiple(of: 2) {
                                let holder = try ChildProcess("/bin/sleep", ["3600"], standardOutput: .pipe)
                                holders.withLock { $0.append(holder) }
                            } else {
                                let short = try ChildProcess("/bin/true", [], standardOutput: .pipe)
                                shorts.withLock { $0.append(short) }
                            }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        // When the short ones exit, then every exit is seen, each with its
        // output ended, while every long-lived child still runs (the
        // timeout only bounds a hang: the holders would never end it)
        let seen = await eventually(timeout: .seconds(60)) {
            shorts.withLock { $0.allSatisfy { $0.exit == ChildProcess.Termination(status: 0, exited: true) } }
        }
        let running = shorts.withLock { $0.filter(\.isRunning).map(\.processIdentifier) }
        #expect(seen, "exits not seen of: \(running)")
        #expect(shorts.withLock { $0.count } == 100)
        #expect(holders.withLock { $0.allSatisfy(\.isRunning) })
        for short in shorts.withLock({ $0 }) {
            #expect(short.standardOutput?.readDataToEndOfFile().isEmpty == true)
        }
    }

    @Test func theExitStatusAndTheWholeOutputAreSeen() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "cat; echo done; echo oops >&2; exit 3"],
                                     standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        child.standardInput?.write(Data("hello\n".utf8))
        try child.standardInput?.close()
        let output = child.standardOutput?.readDataToEndOfFile() ?? Data()
        let errors = child.standardError?.readDataToEndOfFile() ?? Data()
        #expect(child.waitUntilExit() == ChildProcess.Termination(status: 3, exited: true))
        #expect(!child.isRunning)
        #expect(String(decoding: output, as: UTF8.self) == "hello\ndone\n")
        #expect(String(decoding: errors, as: UTF8.self) == "oops\n")
    }

    @Test func aSignalledChildIsReportedKilledBySignal() async throws {
        let child = try ChildProcess("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.send(SIGTERM)
        let exited = await eventually { !child.isRunning }
        #expect(exited)
        #expect(child.exit == ChildProcess.Termination(status: SIGTERM, exited: false))
    }

    @Test func itStartsInTheGivenFolderWithTheGivenEnvironment() async throws {
        let folder = try TestEnvironment.temporaryDirectory("child-process")
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try ChildProcess("/bin/sh", ["-c", "pwd; echo \"$GREETING\""], environment: ["GREETING": "hi"],
                                     currentDirectory: folder, standardOutput: .pipe, standardError: .standardOutput)
        let output = String(decoding: child.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        #expect(child.waitUntilExit().status == 0)
        #expect(output == folder.resolvingSymlinksInPath().path + "\nhi\n", "\(output)")
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: CommandFailed.self) { try ChildProcess("/nonexistent/program", []) }
    }
}
