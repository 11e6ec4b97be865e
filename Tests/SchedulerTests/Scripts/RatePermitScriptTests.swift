import Foundation
import RedisKit
@testable import Scheduler
import Testing
import TestSupport

/// rate-permit.lua through `JobQueue.reserveDownload`, against the real
/// redis-server: GCRA reservations on Redis's clock, horizons by priority
/// band, aging, and the keys it keeps. The calls of one test follow each
/// other within milliseconds, but a loaded machine (the whole suite on two
/// cores) has stretched them over more than a second: the limits are slow,
/// one download every 10 s (a window of 10 s), so every bound below leaves
/// five seconds.
@Suite struct RatePermitScriptTests {
    /// 1 download every 10 s to any host: one slot every 10 s, a window of 10 s.
    private let onePerTenSeconds = FleetRateLimits(perHost: 0.1)

    private func waits(_ reservations: [DownloadReservation]) -> [Double] {
        reservations.map { reservation in
            switch reservation {
            case .granted(let wait): Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
            case .refused: -1
            }
        }
    }

    @Test func reservationsAreSpacedByTheIntervalAndStopAtTheBandsHorizon() async throws {
        let queue = try makeQueue()
        var reservations: [DownloadReservation] = []
        // veryHigh (band 0) may reserve 4 windows ahead: slots at 0, 10, 20, 30 and 40 s
        for _ in 0..<5 {
            reservations.append(try await queue.reserveDownload(host: "a.example", band: 0, waited: .zero, limits: onePerTenSeconds))
        }
        let waits = waits(reservations)
        for (slot, wait) in waits.enumerated() {
            #expect(wait > Double(slot) * 10 - 5 && wait <= Double(slot) * 10, "slot \(slot): \(waits)")
        }
        // The sixth slot (50 s ahead) is past the horizon: refused, to ask again in about 10 s
        let sixth = try await queue.reserveDownload(host: "a.example", band: 0, waited: .zero, limits: onePerTenSeconds)
        guard case .refused(let retryIn) = sixth else {
            Issue.record("a slot beyond the horizon was granted: \(sixth)")
            return
        }
        #expect(retryIn > .seconds(5) && retryIn <= .seconds(10), "\(retryIn)")
    }

    @Test func whenSlotsAreShortAHigherBandIsServedAndALowerOneComesBackLater() async throws {
        let queue = try makeQueue()
        // Given the next free slot 20 s ahead
        for _ in 0..<2 { _ = try await queue.reserveDownload(host: "b.example", band: 2, waited: .zero, limits: onePerTenSeconds) }
        // When a veryLow (¼ window) and a high (2 windows) request ask
        let low = try await queue.reserveDownload(host: "b.example", band: 4, waited: .zero, limits: onePerTenSeconds)
        let high = try await queue.reserveDownload(host: "b.example", band: 1, waited: .zero, limits: onePerTenSeconds)
        // Then the low one is refused, reserving nothing, and the high one gets the slot 20 s ahead
        guard case .refused = low else { Issue.record("veryLow got a slot 20 s ahead: \(low)"); return }
        #expect(waits([high]).first.map { $0 > 15 && $0 <= 20 } == true, "\(high)")
    }

    @Test func aRequestThatWaitedAgesIntoAHigherBand() async throws {
        let queue = try makeQueue { $0.agingInterval = .seconds(10) }
        // Given the next free slot 30 s ahead
        for _ in 0..<3 { _ = try await queue.reserveDownload(host: "c.example", band: 0, waited: .zero, limits: onePerTenSeconds) }
        // A veryLow request that waited 40 s (four aging intervals) counts as veryHigh: 4 windows
        let aged = try await queue.reserveDownload(host: "c.example", band: 4, waited: .seconds(40), limits: onePerTenSeconds)
        #expect(waits([aged]).first.map { $0 > 25 && $0 <= 30 } == true, "\(aged)")
        // …one that waited 10 s is only low (½ window): refused
        let young = try await queue.reserveDownload(host: "c.example", band: 4, waited: .seconds(10), limits: onePerTenSeconds)
        guard case .refused = young else { Issue.record("a barely aged request got a far slot: \(young)"); return }
    }

    @Test func hostsHaveLimitsOfTheirOwnAndTheGlobalLimitSpansThem() async throws {
        let queue = try makeQueue()
        let limits = FleetRateLimits(global: 0.2, perHost: 0.1, hostOverrides: ["fast.example": 1000])
        // One host's slot does not delay another's; the global 0.2/s spaces them by 5 s
        let a = try await queue.reserveDownload(host: "d.example", band: 0, waited: .zero, limits: limits)
        let b = try await queue.reserveDownload(host: "e.example", band: 0, waited: .zero, limits: limits)
        let c = try await queue.reserveDownload(host: "fast.example", band: 0, waited: .zero, limits: limits)
        let waits = waits([a, b, c])
        #expect(waits[0] <= 0.01 && waits[1] > 0 && waits[1] <= 5 && waits[2] > 5 && waits[2] <= 10, "\(waits)")
        // Without any limit for a host and no global one, nothing is reserved (no key)
        #expect(!FleetRateLimits(perHost: nil, hostOverrides: ["x.example": 5]).limits(host: "y.example"))
    }

    @Test func theKeysCarryTheQueuesHashTagAndExpireOnceTheirSlotsPassed() async throws {
        let queue = try makeQueue()
        _ = try await queue.reserveDownload(host: "f.example", band: 2, waited: .zero, limits: FleetRateLimits(global: 1, perHost: 1))
        for key in [queue.keys.rateGlobal, queue.keys.rateHost("f.example")] {
            #expect(key.hasPrefix("warmer:{\(queue.keys.name)}:rate:"))
            let ttl = try await queue.client.send(["PTTL", key]).integer ?? -2
            #expect(ttl > 0 && ttl <= 2_000, "\(key): PTTL \(ttl)")
        }
    }
}
