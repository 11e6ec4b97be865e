import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The file actions of one `ChildProcess` spawn, and the pipes they connect.
///
/// Every pipe is made close-on-exec (`pipe2(O_CLOEXEC)`), so that no other
/// child, spawned at the same moment by another test's thread, can inherit
/// it: only the `dup2` onto the child's standard stream clears the flag,
/// in that child alone.
struct SpawnActions {
    var raw = posix_spawn_file_actions_t()
    /// The child's ends of the pipes, closed in the test once it is spawned.
    private var childEnds: [Int32] = []
    /// The command, for errors.
    private let command: String

    init(command: String) throws {
        self.command = command
        posix_spawn_file_actions_init(&raw)
    }

    /// Makes `target` (0, 1 or 2) in the child `stream`; returns the test's
    /// end of a new pipe, if `stream` is one.
    mutating func connect(_ target: Int32, to stream: ChildProcess.Stream, reading: Bool) throws -> FileHandle? {
        switch stream {
        case .null:
            try check(posix_spawn_file_actions_addopen(&raw, target, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0))
            return nil
        case .inherited:
            return nil
        case .file(let handle):
            try check(posix_spawn_file_actions_adddup2(&raw, handle.fileDescriptor, target))
            return nil
        case .standardOutput:
            try check(posix_spawn_file_actions_adddup2(&raw, 1, target))
            return nil
        case .pipe:
            var ends: [Int32] = [0, 0]
            guard let pipe2 = Self.pipe2 else { throw failure("pipe2", ENOSYS) }
            guard pipe2(&ends, O_CLOEXEC) == 0 else { throw failure("pipe2", errno) }
            let (childEnd, ourEnd) = reading ? (ends[0], ends[1]) : (ends[1], ends[0])
            childEnds.append(childEnd)
            try check(posix_spawn_file_actions_adddup2(&raw, childEnd, target))
            return FileHandle(fileDescriptor: ourEnd, closeOnDealloc: true)
        }
    }

    /// Closes, in the child, every descriptor above its standard streams,
    /// however and whenever the test process opened it.
    mutating func closeEverythingAbove2() throws {
        guard let addClosefrom = Self.addClosefrom else {
            throw CommandFailed(command: command, status: -1, output: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        try check(addClosefrom(&raw, 3))
    }

    /// Starts the child in `path`.
    mutating func changeDirectory(to path: String) throws {
        guard let addChdir = Self.addChdir else {
            throw CommandFailed(command: command, status: -1, output: "this C library has no posix_spawn_file_actions_addchdir_np (glibc 2.29 or later)")
        }
        try check(addChdir(&raw, path))
    }

    /// Closes the child's ends of the pipes in the test process.
    mutating func closeChildEnds() {
        for descriptor in childEnds { close(descriptor) }
        childEnds = []
    }

    /// Frees the actions (and closes any child end still open).
    mutating func destroy() {
        closeChildEnds()
        posix_spawn_file_actions_destroy(&raw)
    }

    private func check(_ result: Int32) throws {
        guard result == 0 else { throw failure("posix_spawn_file_actions", result) }
    }

    private func failure(_ call: String, _ code: Int32) -> CommandFailed {
        CommandFailed(command: command, status: -1, output: "\(call): \(String(cString: strerror(code)))")
    }

    // glibc declares these three only under _GNU_SOURCE / __USE_MISC, which
    // Swift's Glibc module does not import: looked up by name instead.
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    private static let pipe2: Pipe2? = symbol("pipe2")
    private static let addClosefrom: AddClosefrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
