import Foundation
import Testing
import TestSupport

/// A `GatedOrigin` driven as a slow origin whose every download takes
/// `duration` ticks: each tick answers the requests due then, and waits
/// until the workers have sent the requests of the jobs they claimed in
/// the freed slots. Time is counted in ticks, not seconds, so a loaded
/// machine changes nothing but how long the test takes.
struct TickedDownloads {
    let origin: GatedOrigin
    /// Ticks a download takes.
    let duration: Int
    /// The workers' slots: the most requests held at once.
    let slots: Int
    /// The current tick.
    private(set) var now = 0
    /// The jobs given to the workers so far (each one download).
    var jobs = 0
    /// Each held request's due tick, by request id.
    private var due: [Int: Int] = [:]
    /// Every answered request: its path and the tick it ended at.
    private(set) var ends: [(path: String, tick: Int)] = []

    init(origin: GatedOrigin, slots: Int, duration: Int? = nil) {
        self.origin = origin
        self.slots = slots
        self.duration = duration ?? slots
    }

    /// Waits until the workers hold a request in every slot (or one for each
    /// job not yet ended, when fewer) and gives the new ones their
    /// due tick: now + duration, or with `staggered` 1, 2, 3… ticks from
    /// now in arrival order (slots that have been busy for a while, so that
    /// one ends a tick).
    mutating func settle(staggered: Bool = false) async throws {
        let origin = origin
        let count = min(slots, jobs - ends.count)
        let held = await eventuallyValue(timeout: .seconds(120)) { () -> [GatedOrigin.Request]? in
            let held = origin.held
            return held.count >= count ? held : nil
        }
        guard let held else {
            throw HarnessError("tick \(now): \(origin.held.count) requests held, \(count) expected")
        }
        #expect(held.count <= slots, "tick \(now): \(held.count) requests held on \(slots) slots")
        var step = 0
        for request in held where due[request.id] == nil {
            step += 1
            due[request.id] = now + (staggered ? step : duration)
        }
    }

    /// The next tick: answers the requests due then, and waits until the
    /// workers hold the requests of the jobs they claimed in the freed slots.
    mutating func tick() async throws {
        now += 1
        let ending = origin.held.filter { due[$0.id] == now }
        origin.release(Set(ending.map(\.id)))
        for request in ending {
            due[request.id] = nil
            ends.append((request.path, now))
        }
        try await settle()
    }
}
