import Foundation
import TestSupport

/// When nginx served the requests for one path, from its access log's last
/// field (`$msec`, scripts/services.sh), and the rates they add up to.
struct OriginTraffic {
    /// The end of each request, Unix seconds, in log order.
    let times: [Double]

    /// The GET requests for `path` (relative to the origin's root, query
    /// strings aside: nginx logs `$uri`) logged so far.
    init(path: String) throws {
        let log = try String(contentsOf: TestEnvironment.originLog(), encoding: .utf8)
        times = log.split(separator: "\n").filter { $0.hasPrefix("GET /\(path) ") }.compactMap { line in
            line.split(separator: " ").last.flatMap { Double($0) }
        }.sorted()
    }

    /// Requests ending at `times` (Unix seconds), sorted.
    init(times: [Double]) { self.times = times.sorted() }

    /// The requests that ended at or after `start` (Unix seconds).
    func since(_ start: Double) -> OriginTraffic { OriginTraffic(times: times.filter { $0 >= start }) }

    /// The requests that ended before `end` (Unix seconds).
    func before(_ end: Double) -> OriginTraffic { OriginTraffic(times: times.filter { $0 < end }) }

    /// The most requests in one calendar second (Unix seconds), as the
    /// finding measured it.
    var busiestSecond: Int {
        Dictionary(grouping: times) { $0.rounded(.down) }.values.map(\.count).max() ?? 0
    }

    /// The most requests in any `seconds`-long window, wherever it starts:
    /// a burst shows whether or not it straddles a calendar second.
    func busiestWindow(seconds: Double) -> Int {
        var busiest = 0
        var first = 0
        for (last, time) in times.enumerated() {
            while times[first] <= time - seconds { first += 1 }
            busiest = max(busiest, last - first + 1)
        }
        return busiest
    }

    /// Requests per second between the first and the last request: the
    /// seconds requests were in flight, so slowness elsewhere cannot lower it.
    var meanRate: Double {
        guard let first = times.first, let last = times.last, last > first else { return 0 }
        return Double(times.count - 1) / (last - first)
    }

    /// A line for failure messages.
    var summary: String {
        "\(times.count) requests, busiest second \(busiestSecond), busiest 1-s window \(busiestWindow(seconds: 1)), mean \(String(format: "%.2f", meanRate))/s"
    }
}
