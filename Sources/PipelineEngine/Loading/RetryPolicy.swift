import Foundation
import WarmerSupport

/// When and how soon a failed download is tried again.
///
/// Transient failures — connection errors, timeouts, HTTP 408, 429 and 5xx
/// (except 501) — are retried with exponential backoff and jitter, or after
/// the origin's `Retry-After` when it asks for longer. Everything else fails
/// at once: other 4xx, a refused address, a body over the limit, a URL with
/// the wrong scheme. Bad image data never reaches the loader's retries.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first included. Default: 4; 1 disables retries.
    public var maximumAttempts = 4
    /// The backoff before the second attempt. Default: 500 ms.
    public var initialDelay: Duration = .milliseconds(500)
    /// Each further backoff is this many times the previous one. Default: 2.
    public var multiplier = 2.0
    /// The longest backoff. Default: 30 s.
    public var maximumDelay: Duration = .seconds(30)
    /// The longest `Retry-After` waited for in the process. An origin asking
    /// for longer fails the download now; the job's own retry (in the
    /// queue) comes back later. Default: 60 s.
    public var maximumRetryAfter: Duration = .seconds(60)

    /// The default policy.
    public init() {}

    /// A policy that never retries.
    public static var never: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumAttempts = 1
        return policy
    }

    /// Whether `error` may go away by trying again.
    public static func isTransient(_ error: DataLoaderError) -> Bool {
        switch error {
        case .timedOut, .transport: true
        case .httpStatus(let status): status == 408 || status == 429 || ((500...599).contains(status) && status != 501)
        case .invalidURL, .unsupportedScheme, .bodyTooLarge, .tooManyRedirects, .cancelled, .addressRefused: false
        }
    }

    /// The wait before the attempt after `attempt` (from 1) failed with
    /// `error`, or `nil` when the download must fail now.
    ///
    /// - Parameters:
    ///   - retryAfter: the origin's `Retry-After`, if it sent one.
    ///   - random: a number in `0..<1` for the jitter.
    /// - Returns: "equal jitter" backoff, half the exponential delay plus a
    ///   random part of the other half (retries of many workers spread out,
    ///   yet never come back at once), or the `Retry-After` when longer.
    public func delay(afterAttempt attempt: Int, error: DataLoaderError, retryAfter: Duration?, random: Double) -> Duration? {
        guard attempt < maximumAttempts, Self.isTransient(error) else { return nil }
        if let retryAfter, retryAfter > maximumRetryAfter { return nil }
        let exponential = initialDelay.seconds * pow(multiplier, Double(attempt - 1))
        let capped = min(exponential, maximumDelay.seconds)
        let backoff = Duration.seconds(capped / 2 + capped / 2 * min(max(random, 0), 1))
        return max(backoff, retryAfter ?? .zero)
    }

    /// The wait a `Retry-After` header asks for: delay-seconds, or an HTTP
    /// date (RFC 9110 §10.2.3). `nil` when absent or malformed; a date in the past is zero.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (48...57).contains($0) }) {
            return Int64(value).map { .seconds($0) } ?? .seconds(Int64.max)
        }
        return HTTPDate.parse(value).map { .seconds(max(0, $0.timeIntervalSince(now))) }
    }
}
