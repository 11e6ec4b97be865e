import Foundation
import Synchronization
import TestSupport
import Testing
import WarmerSupport

@Suite struct DedicatedThreadTests {
    @Test func namesFitLinuxsLimit() {
        #expect(DedicatedThread.name("curl") == "warmer.curl")
        #expect(DedicatedThread.name("redis", number: 0) == "warmer.redis.0")
        #expect(DedicatedThread.name("processing", number: 12) == "warmer.proce.12")
        #expect(DedicatedThread.name("redis-commands", number: 1) == "warmer.redis-.1")
        #expect(DedicatedThread.name("déjà-vu-queue", number: 1).utf8.count <= DedicatedThread.maximumNameLength)
    }

    @Test func aStartedThreadRunsItsBodyUnderItsName() async {
        let seen = Mutex<(name: String?, isMain: Bool)?>(nil)
        DedicatedThread.start(named: "warmer.named") {
            let current = (name: Thread.current.name, isMain: Thread.isMainThread)
            seen.withLock { $0 = current }
        }
        #expect(await eventually { seen.withLock { $0 != nil } })
        #expect(seen.withLock { $0?.name } == "warmer.named")
        #expect(seen.withLock { $0?.isMain } == false)
    }
}
