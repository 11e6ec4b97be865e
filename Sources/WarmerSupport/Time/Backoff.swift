/// The waits between attempts to reach Redis again: 100 ms, doubled after
/// each failure up to `maximum`, back to 100 ms after a success.
package struct Backoff: Sendable {
    /// The longest wait.
    package let maximum: Duration
    /// The wait before the next attempt.
    package private(set) var delay: Duration = .milliseconds(100)

    package init(maximum: Duration = .seconds(5)) {
        self.maximum = maximum
    }

    /// After a success: the next failure waits the shortest time again.
    package mutating func reset() {
        delay = .milliseconds(100)
    }

    /// After a failure: waits `delay` (unless the task is cancelled) and doubles it.
    package mutating func wait() async {
        await wait(on: ContinuousClock())
    }

    /// After a failure: waits `delay` on `clock` (unless the task is
    /// cancelled) and doubles it. A test's clock makes the waits instant.
    package mutating func wait(on clock: any TimerClock) async {
        try? await clock.sleep(for: delay)
        delay = min(delay * 2, maximum)
    }
}
