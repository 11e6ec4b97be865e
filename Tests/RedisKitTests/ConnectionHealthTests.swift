import Dispatch
import Foundation
import Logging
import Testing
@testable import RedisKit

/// A client's outage lines, as its connection threads report round trips.
@Suite struct ConnectionHealthTests {
    @Test func anOutageIsOneLineWhenItStartsAndOneWhenItEnds() {
        let log = HeldLog(holding: nil)
        let health = ConnectionHealth(logger: Logger(label: "test") { _ in log })
        for error in [RedisError.connection("reset"), .unreachable("refused"), .connection("reset")] { health.record(error) }
        health.record(.server("ERR a reply is a working connection"))
        health.record(nil)
        health.record(.unreachable("refused"))
        #expect(log.messages == ["Redis connection lost", "Redis reconnected", "Redis connection lost"])
    }

    @Test func aLossSeenWhileAReconnectionIsLoggedComesAfterIt() async {
        // Given an outage, and a thread whose round trip ends it, held
        // while it writes `Redis reconnected`
        let log = HeldLog(holding: "Redis reconnected")
        let health = ConnectionHealth(logger: Logger(label: "test") { _ in log })
        health.record(.connection("reset"))
        let reconnected = DispatchSemaphore(value: 0), lostAgain = DispatchSemaphore(value: 0)
        // (threads of their own, as the client's connections have: a pool
        // of two might have no second thread while the first is held)
        Thread {
            health.record(nil)
            reconnected.signal()
        }.start()
        await log.waitUntilHeld()

        // When another thread's round trip fails meanwhile
        Thread {
            health.record(.connection("reset again"))
            lostAgain.signal()
        }.start()
        // (it may not finish while the line is held; the wait only bounds how long the test gives it)
        let lostFirst = lostAgain.wait(timeout: .now() + .milliseconds(200)) == .success
        log.release()
        reconnected.wait()
        if !lostFirst { lostAgain.wait() }

        // Then the lines come in the order of the changes
        #expect(log.messages == ["Redis connection lost", "Redis reconnected", "Redis connection lost"])
    }
}
