import Dispatch
import Synchronization
import TestSupport
import Testing
@testable import WarmerSupport

@Suite struct ThreadInboxTests {
    /// Starts `count` consumers of `inbox` recording into `record`; the
    /// first batch any of them handles waits for `firstTurnGate`, if any.
    private func startConsumers(
        _ count: Int = 1, of inbox: ThreadInbox<Int>, into record: ConsumerRecord<Int>, batchLimit: Int = .max,
        firstTurnGate: DispatchSemaphore? = nil
    ) {
        let isGateTaken = Atomic(false)
        for consumer in 0..<count {
            DedicatedThread.start(named: DedicatedThread.name("test", number: consumer)) {
                inbox.consume(batchLimit: batchLimit) { batch in
                    record.record(batch, consumer: consumer)
                    if let firstTurnGate, isGateTaken.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
                        // The timeout only unblocks a broken build, which then fails.
                        _ = firstTurnGate.wait(timeout: .now() + 60)
                    }
                }
                record.finish()
            }
        }
    }

    @Test func messagesQueuedWhileATurnRunsArriveAsOneBatch() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>(), gate = DispatchSemaphore(value: 0)
        startConsumers(of: inbox, into: record, firstTurnGate: gate)
        inbox.post(1)
        #expect(await eventually { record.batches == [[1]] })
        // While the consumer is busy with its first turn…
        for message in 2...5 { #expect(inbox.post(message) == .queued) }
        gate.signal()
        // …the messages posted meanwhile come as its next batch.
        #expect(await eventually { record.batches.count == 2 })
        inbox.close()
        #expect(await eventually { record.finished == 1 })
        #expect(record.batches == [[1], [2, 3, 4, 5]])
    }

    @Test func messagesKeepTheOrderTheyWerePostedIn() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>()
        startConsumers(of: inbox, into: record)
        for message in 0..<5_000 { inbox.post(message) }
        inbox.close()
        #expect(await eventually { record.finished == 1 })
        #expect(record.batches.joined().elementsEqual(0..<5_000))
        #expect(!record.batches.contains { $0.isEmpty })
    }

    @Test func aBatchLimitOfOneHandsOverOneMessagePerTurn() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>(), gate = DispatchSemaphore(value: 0)
        startConsumers(of: inbox, into: record, batchLimit: 1, firstTurnGate: gate)
        inbox.post(1)
        #expect(await eventually { record.batches.count == 1 })
        for message in 2...4 { inbox.post(message) }
        gate.signal()
        inbox.close()
        #expect(await eventually { record.finished == 1 })
        #expect(record.batches == [[1], [2], [3], [4]])
    }

    @Test func aSecondConsumerTakesMessagesWhileTheFirstIsBusy() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>(), gate = DispatchSemaphore(value: 0)
        startConsumers(2, of: inbox, into: record, firstTurnGate: gate)
        // The consumer that takes the first message blocks in that turn…
        inbox.post(1)
        #expect(await eventually { record.batches.count == 1 })
        let busy = record.batches(of: 0).isEmpty ? 1 : 0, other = 1 - busy
        // …so every further message reaches the other one.
        for message in 2...11 { inbox.post(message) }
        #expect(await eventually { record.batches(of: other).joined().contains(11) })
        #expect(record.batches(of: busy) == [[1]])
        #expect(Array(record.batches(of: other).joined()) == Array(2...11))
        gate.signal()
        inbox.close()
        #expect(await eventually { record.finished == 2 })
    }

    @Test func severalConsumersHandleEveryMessageOnce() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>()
        startConsumers(4, of: inbox, into: record)
        await withTaskGroup(of: Void.self) { group in
            for poster in 0..<4 {
                group.addTask { for message in 0..<1_000 { inbox.post(poster * 1_000 + message) } }
            }
        }
        inbox.close()
        #expect(await eventually { record.finished == 4 })
        #expect(record.batches.joined().sorted() == Array(0..<4_000))
    }

    @Test func closingDrainsWhatIsQueuedThenEndsTheConsumers() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>(), gate = DispatchSemaphore(value: 0)
        startConsumers(of: inbox, into: record, firstTurnGate: gate)
        inbox.post(1)
        #expect(await eventually { record.batches.count == 1 })
        inbox.post(2)
        inbox.post(3)
        inbox.close()
        #expect(inbox.isClosed)
        // Queued before the close: still handled, then the consumer returns.
        gate.signal()
        #expect(await eventually { record.finished == 1 })
        #expect(record.batches == [[1], [2, 3]])
    }

    @Test func aMessagePostedAfterCloseIsRefused() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>()
        startConsumers(of: inbox, into: record)
        inbox.close()
        #expect(inbox.post(1) == .refused)
        #expect(await eventually { record.finished == 1 })
        #expect(record.batches.isEmpty)
        #expect(inbox.takeQueued().isEmpty)
    }

    @Test func aWaitingConsumerIsWokenByAPost() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>()
        startConsumers(of: inbox, into: record)
        // Once the consumer waits, a post reports waking it.
        var message = 0
        #expect(await eventually {
            message += 1
            return inbox.post(message) == .wokeWaitingConsumer
        })
        #expect(await eventually { record.batches.joined().contains(message) })
        inbox.close()
        #expect(await eventually { record.finished == 1 })
    }

    @Test func takeQueuedReturnsEverythingQueuedWithoutWaiting() {
        let inbox = ThreadInbox<String>()
        #expect(inbox.takeQueued().isEmpty)
        #expect(inbox.post("a") == .queued)
        #expect(inbox.post("b") == .queued)
        #expect(inbox.takeQueued() == ["a", "b"])
        #expect(inbox.takeQueued().isEmpty)
        inbox.post("c")
        inbox.close()
        #expect(inbox.takeQueued() == ["c"])
    }

    @Test func anIdleConsumerLeavesWhenItsConditionHoldsAndIsWoken() async {
        let inbox = ThreadInbox<Int>(), record = ConsumerRecord<Int>()
        let shouldLeave = Atomic(false)
        DedicatedThread.start(named: "warmer.test") {
            inbox.consume(leavingWhen: { shouldLeave.load(ordering: .relaxed) }) { record.record($0) }
            record.finish()
        }
        inbox.post(1)
        #expect(await eventually { record.batches == [[1]] })
        shouldLeave.store(true, ordering: .relaxed)
        inbox.wakeWaitingConsumers()
        #expect(await eventually { record.finished == 1 })
        #expect(!inbox.isClosed)
        // Nobody consumes any more: the inbox keeps what is posted.
        inbox.post(2)
        #expect(inbox.takeQueued() == [2])
    }
}
