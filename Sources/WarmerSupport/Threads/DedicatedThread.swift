import Dispatch
import Foundation

/// Starts the threads of their own on which Warmer runs blocking C calls
/// (libcurl's poll, hiredis round trips, libvips work), so that they never
/// occupy a thread of Swift's cooperative pool.
///
/// Threads are named "warmer.<label>" or "warmer.<label>.N" (see `name`),
/// which is what `top -H`, `perf` and a debugger show.
public enum DedicatedThread {
    /// The longest thread name in bytes that Linux keeps (16 with the NUL).
    public static let maximumNameLength = 15

    /// "warmer.<label>" (or "warmer.<label>.N" with a `number`), `label`
    /// shortened so that the whole fits `maximumNameLength`. Linux refuses
    /// longer names: the thread would keep the process's name.
    public static func name(_ label: String, number: Int? = nil) -> String {
        let prefix = "warmer.", suffix = number.map { ".\($0)" } ?? ""
        let budget = maximumNameLength - prefix.utf8.count - suffix.utf8.count
        var shortLabel = ""
        for character in label {
            guard shortLabel.utf8.count + character.utf8.count <= budget else { break }
            shortLabel.append(character)
        }
        return prefix + shortLabel + suffix
    }

    /// Starts a thread named `name` that runs `body`, then ends.
    ///
    /// Linux's Foundation makes naming racy: `Thread.name`'s setter does
    /// nothing until `start()` has stored the thread's handle (so a name set
    /// before `start()`, or too early from the new thread, is dropped), and
    /// the new thread re-applies its inherited name as it begins (so a name
    /// set by the parent can be overwritten). Hence the new thread names
    /// itself, once `start()` has returned in the parent (the semaphore
    /// orders the two), before it runs `body`.
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let isStarted = DispatchSemaphore(value: 0)
        let thread = Thread {
            isStarted.wait()
            Thread.current.name = name
            body()
        }
        thread.start()
        isStarted.signal()
    }
}
