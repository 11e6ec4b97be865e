import Logging
import PipelineEngine
import Scheduler
import SchedulerFakes
import Testing
import TestSupport
@testable import WarmerWorker

/// The worker's side of the fleet's rate limits: it sleeps until the slot
/// Redis reserved (here scripted, `ScriptedDownloadSlots`) on a clock the
/// test moves, and a download that wakes for its slot too late gives it up
/// rather than start beside the next one. The suite's time limit only
/// bounds a broken build's hang.
@Suite(.timeLimit(.minutes(1))) struct FleetRateLimiterTests {
    /// A download from `a.example` at 20 a second (slots 50 ms apart)
    /// asking a limiter whose slots answer `answers`, on a clock of its
    /// own, returned once it sleeps on that clock.
    private struct WaitingPermit {
        let clock: ManualClock
        let slots: ScriptedDownloadSlots
        let permit: Task<Void, any Error>

        init(_ answers: [DownloadReservation]) async {
            let clock = ManualClock()
            let slots = ScriptedDownloadSlots(answers)
            let limiter = FleetRateLimiter(slots: slots, limits: FleetRateLimits(perHost: 20), clock: clock, logger: Logger(label: "test"))
            (self.clock, self.slots) = (clock, slots)
            permit = Task { try await limiter.permit(host: "a.example") { .normal } }
            await clock.waitForSleepers(1)
        }
    }

    /// What the permit did after the clock moved: started the download, or
    /// went back to sleep (a new reservation, or a wait to ask again).
    private enum Next: Equatable { case started, sleepsAgain }

    /// Whichever comes first after the clock moved: the permit returns, or
    /// the limiter sleeps on the clock again.
    private func next(of permit: Task<Void, any Error>, on clock: ManualClock) async -> Next {
        let (outcomes, outcome) = AsyncStream.makeStream(of: Next.self)
        Task { _ = await permit.result; outcome.yield(.started) }
        let sleeps = Task { await clock.waitForSleepers(1); if !Task.isCancelled { outcome.yield(.sleepsAgain) } }
        defer { sleeps.cancel() }
        var iterator = outcomes.makeAsyncIterator()
        return await iterator.next() ?? .started
    }

    @Test func aDownloadStartsAtItsSlotAndNotBefore() async throws {
        let waiting = await WaitingPermit([.granted(wait: .milliseconds(50))])
        let (clock, slots, permit) = (waiting.clock, waiting.slots, waiting.permit)

        clock.advance(by: .milliseconds(49))
        #expect(clock.sleeperCount == 1, "started before its slot")
        clock.advance(by: .milliseconds(1))
        try await permit.value
        #expect(slots.reservations.calls.count == 1)
    }

    @Test func aDownloadThatWakesLateByMoreThanTheSpacingReservesTheNextFreeSlotInstead() async throws {
        // Given a slot 50 ms ahead, then (for the second request) the next free one 150 ms ahead
        let waiting = await WaitingPermit([.granted(wait: .milliseconds(50)), .granted(wait: .milliseconds(150))])
        let (clock, slots, permit) = (waiting.clock, waiting.slots, waiting.permit)

        // When the process wakes 60 ms after its slot (a stall longer than the 50 ms spacing)
        clock.advance(by: .milliseconds(110))

        // Then it does not start: it asked for a new slot and sleeps until that one
        let next = await next(of: permit, on: clock)
        #expect(next == .sleepsAgain)
        #expect(slots.reservations.calls.count == 2)
        clock.advance(by: .milliseconds(150))
        try await permit.value
        #expect(slots.reservations.calls.count == 2)
    }

    @Test func aDownloadLateByNoMoreThanTheSpacingStartsOnItsSlot() async throws {
        let waiting = await WaitingPermit([.granted(wait: .milliseconds(50))])
        let (clock, slots, permit) = (waiting.clock, waiting.slots, waiting.permit)

        clock.advance(by: .milliseconds(100))

        #expect(await next(of: permit, on: clock) == .started)
        #expect(slots.reservations.calls.count == 1)
    }

    @Test func aDownloadGivesUpAtMostOneSlotSoAProcessAlwaysLateStillMakesProgress() async throws {
        let waiting = await WaitingPermit([.granted(wait: .milliseconds(50)), .granted(wait: .milliseconds(50))])
        let (clock, slots, permit) = (waiting.clock, waiting.slots, waiting.permit)
        clock.advance(by: .milliseconds(200))
        #expect(await next(of: permit, on: clock) == .sleepsAgain)

        // Late again for its second slot: it starts
        clock.advance(by: .milliseconds(200))
        #expect(await next(of: permit, on: clock) == .started)
        #expect(slots.reservations.calls.count == 2)
    }

    @Test func aDownloadFromAnUnlimitedHostAsksForNoSlot() async throws {
        let clock = ManualClock()
        let slots = ScriptedDownloadSlots([])
        let limiter = FleetRateLimiter(
            slots: slots, limits: FleetRateLimits(hostOverrides: ["limited.example": 5]), clock: clock, logger: Logger(label: "test"))
        try await limiter.permit(host: "free.example") { .normal }
        #expect(slots.reservations.calls.isEmpty)
    }
}
