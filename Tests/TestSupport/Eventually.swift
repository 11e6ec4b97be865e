/// Waiting for asynchronous outcomes without turning sleeps into assertions.
///
/// Each helper polls a condition until it holds or a deadline passes, and
/// reports which happened; the test then asserts on that. The deadline only
/// bounds how long a broken build makes the suite wait: a passing run returns
/// as soon as the condition holds.

/// Polls `condition` every `interval` until it returns true or `timeout`
/// passes. Returns whether it became true.
public func eventually(
    timeout: Duration = .seconds(20), pollingEvery interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await eventuallyValue(timeout: timeout, pollingEvery: interval) { try await condition() ? true : nil } ?? false
}

/// Polls `produce` every `interval` until it returns a value or `timeout`
/// passes. Returns the value, or `nil` on timeout.
public func eventuallyValue<Value>(
    timeout: Duration = .seconds(20), pollingEvery interval: Duration = .milliseconds(50),
    _ produce: () async throws -> Value?
) async rethrows -> Value? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await produce() { return value }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: interval)
    }
}
