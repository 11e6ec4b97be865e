import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A process a test starts (`warmer`, `redis-server`, `redis-cli`, a
/// script…), with its exit seen by `waitpid` and no descriptor of the test
/// process but its standard streams.
///
/// Not Foundation's `Process`: on Linux it opens its pipes without
/// close-on-exec, and closes in each child only the descriptors that were
/// open when it listed them, a moment before the spawn. A pipe or socket
/// that another test's thread opens in between leaks into that child. And
/// `Process` learns of an exit from the end of file of a socket the child
/// holds: when a long-lived child (a worker, a `redis-server`) started by
/// one test inherited the socket or the output pipe of a process another
/// test started at the same moment, that process stayed "running", its
/// output open, long after it had exited, until the holder exited too. The
/// full suite saw this as workers that logged `stopped` and then "did not
/// stop within their grace period" (docs/testing.md).
///
/// Here every descriptor the harness opens for a child is close-on-exec,
/// every child closes all its descriptors above 2 before it runs
/// (`posix_spawn_file_actions_addclosefrom_np`), and a thread of its own
/// waits for the exit.
public final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream {
        /// `/dev/null`.
        case null
        /// The test process's own (its log, for `mount`'s complaints).
        case inherited
        /// A new pipe; the test's end is `standardInput`, `standardOutput`
        /// or `standardError`.
        case pipe
        /// An open file of the test's (its descriptor is duplicated).
        case file(FileHandle)
        /// Standard error only: the same as standard output.
        case standardOutput
    }

    /// How a finished child ended.
    public struct Termination: Sendable, Equatable {
        /// The exit status, or the number of the signal that killed it.
        public let status: Int32
        /// Whether it exited, as opposed to being killed by a signal.
        public let exited: Bool

        /// An exit with `status`, or (`exited` false) death by signal `status`.
        public init(status: Int32, exited: Bool) {
            self.status = status
            self.exited = exited
        }
    }

    /// The child's process id.
    public let processIdentifier: Int32
    /// The test's end of the child's standard input, when it is `.pipe`.
    public let standardInput: FileHandle?
    /// The test's end of the child's standard output, when it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The test's end of the child's standard error, when it is `.pipe`.
    public let standardError: FileHandle?

    private let termination = Mutex<Termination?>(nil)
    /// Left when the child has been reaped; `wait()`ed on by `waitUntilExit`.
    private let reaped = DispatchGroup()

    /// Starts `executable` (a path; `/usr/bin/env` finds a command on
    /// `PATH`) with `arguments`.
    /// - Parameters:
    ///   - environment: the whole environment; `nil` for the test process's.
    ///   - currentDirectory: where it starts; `nil` for the test process's.
    /// - Throws: `CommandFailed` when it cannot be started.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, standardInput: Stream = .null, standardOutput: Stream = .null,
        standardError: Stream = .null
    ) throws {
        let command = ([executable] + arguments).joined(separator: " ")
        var actions = try SpawnActions(command: command)
        defer { actions.destroy() }
        var ours: [FileHandle?] = []
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            ours.append(try actions.connect(target, to: stream, reading: target == 0))
        }
        try actions.closeEverythingAbove2()
        if let currentDirectory { try actions.changeDirectory(to: currentDirectory.path) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, as Foundation's `Process` does: a Ctrl-C
        // at the test's terminal reaches the test, which stops its children.
        // And no signal blocked, as a shell or systemd starts it: the
        // spawning thread may be one of Dispatch's, which block nearly all.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))

        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result = withCStrings([executable] + arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions.raw, &attributes, argv, envp) }
        }
        actions.closeChildEnds()
        guard result == 0 else {
            throw CommandFailed(command: command, status: -1, output: "posix_spawn: \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        (self.standardInput, self.standardOutput, self.standardError) = (ours[0], ours[1], ours[2])
        reaped.enter()
        let thread = Thread { [self] in
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) == -1, errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let signal = status & 0x7f
            termination.withLock { $0 = Termination(status: signal == 0 ? (status >> 8) & 0xff : signal, exited: signal == 0) }
            reaped.leave()
        }
        thread.name = "child-\(pid)-waiter"
        thread.start()
    }

    /// Whether it has not exited yet.
    public var isRunning: Bool { termination.withLock { $0 == nil } }

    /// How it ended, or `nil` while it runs.
    public var exit: Termination? { termination.withLock { $0 } }

    /// Sends `signal` unless it has already been reaped.
    public func send(_ signal: Int32) {
        termination.withLock { if $0 == nil { _ = kill(processIdentifier, signal) } }
    }

    /// Blocks the calling thread until it exits, and returns how. Never
    /// call it on a thread of Swift's cooperative pool: poll `isRunning`
    /// there (`eventually`).
    @discardableResult
    public func waitUntilExit() -> Termination {
        reaped.wait()
        return termination.withLock { $0! }
    }
}

/// Runs `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
