/// The jobs a queue ended per second over its last minutes, from the
/// counters the queue scripts keep (`warmer:{Q}:metrics` and
/// `warmer:{Q}:metrics:seconds`, docs/wire-format.md).
public struct QueueThroughput: Sendable, Hashable, Codable {
    /// One second's job ends.
    public struct Point: Sendable, Hashable, Codable {
        /// The second, in seconds since the epoch (Redis clock).
        public let second: Int64
        /// Jobs that completed in it.
        public let completed: Int
        /// Jobs that failed for good or were dead-lettered in it.
        public let failed: Int
        /// The bytes of the images of the jobs that completed in it.
        public let bytes: Int64

        /// A second's counts.
        public init(second: Int64, completed: Int, failed: Int, bytes: Int64) {
            self.second = second
            self.completed = completed
            self.failed = failed
            self.bytes = bytes
        }
    }

    /// One point per second, oldest first, ending with the current (partial)
    /// second; seconds in which no job ended are zeros.
    public let points: [Point]

    /// The points.
    public init(points: [Point]) {
        self.points = points
    }

    /// The most seconds the queue keeps: 15 minutes.
    public static let maximumSeconds = 900

    /// `points` for the `seconds` seconds ending with `now`, from the counts
    /// stored for some of them (other seconds are zeros; seconds outside the
    /// window are left out).
    static func window(ending now: Int64, seconds: Int, counts: [Point]) -> QueueThroughput {
        let first = now - Int64(seconds) + 1
        var bySecond: [Int64: Point] = [:]
        for point in counts where point.second >= first && point.second <= now && bySecond[point.second] == nil {
            bySecond[point.second] = point
        }
        return QueueThroughput(points: (first...now).map { second in
            bySecond[second] ?? Point(second: second, completed: 0, failed: 0, bytes: 0)
        })
    }

    /// A `metrics:seconds` entry, `SECOND COMPLETED FAILED BYTES`; nil when malformed.
    static func point(entry: String) -> Point? {
        let parts = entry.split(separator: " ")
        guard parts.count == 4, let second = Int64(parts[0]), let completed = Int(parts[1]), let failed = Int(parts[2]),
              let bytes = Int64(parts[3]) else { return nil }
        return Point(second: second, completed: completed, failed: failed, bytes: bytes)
    }

    /// The `metrics` hash's current second; nil when it has none.
    static func point(fields: [String: String]) -> Point? {
        guard let second = fields["second"].flatMap({ Int64($0) }) else { return nil }
        return Point(second: second, completed: fields["completed"].flatMap { Int($0) } ?? 0,
                     failed: fields["failed"].flatMap { Int($0) } ?? 0, bytes: fields["bytes"].flatMap { Int64($0) } ?? 0)
    }
}
