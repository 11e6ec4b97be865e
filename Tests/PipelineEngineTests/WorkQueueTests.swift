import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import PipelineEngine

@Suite("WorkQueue")
struct WorkQueueTests {
    /// The two kinds of operation, which share slots and order.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case async, blocking
        var testDescription: String { rawValue }
    }

    @Test func runsAtMostTheConcurrencyLimit() async {
        // Given: a limit of 3, and 12 operations of both kinds that each wait on a gate.
        let queue = WorkQueue(name: "test-limit", maxConcurrentOperationCount: 3)
        let running = Counter(), maxRunning = Counter(), done = Counter()
        let gate = DispatchSemaphore(value: 0)
        @Sendable func work() {
            maxRunning.raise(to: running.add(1))
            gate.wait()
            running.add(-1) // before the slot is released
            done.add(1)
        }
        for index in 0..<12 {
            if index.isMultiple(of: 2) {
                queue.enqueueBlocking(priority: .normal, work)
            } else {
                queue.enqueue(priority: .normal) { finish in Thread { work(); finish() }.start() }
            }
        }
        // When: three have started…
        #expect(await eventually { running.value == 3 })
        #expect(queue.runningCount == 3)
        #expect(queue.waitingCount == 9)
        #expect(queue.operationCount == 12)
        // …and then every gate opens.
        for _ in 0..<12 { gate.signal() }
        // Then: all ran, never more than three at once.
        #expect(await eventually { done.value == 12 && queue.operationCount == 0 })
        #expect(maxRunning.value == 3)
        #expect(queue.threadCount <= 3)
    }

    @Test(arguments: Kind.allCases)
    func startsHigherPriorityFirst(kind: Kind) async {
        // Given: one slot, suspended, and work at every priority enqueued lowest-but-one first.
        let queue = WorkQueue(name: "test-priority", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        let priorities: [ImagePriority] = [.low, .normal, .high, .veryHigh, .veryLow]
        for priority in priorities { enqueue(kind, on: queue, priority) { log.append("\(priority)") } }
        #expect(queue.waitingCount == 5)
        #expect(queue.runningCount == 0)
        #expect(log.entries.isEmpty)
        // When
        queue.isSuspended = false
        // Then
        #expect(await eventually { log.entries.count == 5 })
        #expect(log.entries == ["veryHigh", "high", "normal", "low", "veryLow"])
    }

    @Test(arguments: Kind.allCases)
    func fifoWithinAPriority(kind: Kind) async {
        // Given: even numbers at normal, odd ones at low, interleaved.
        let queue = WorkQueue(name: "test-fifo", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        for number in 0..<40 {
            enqueue(kind, on: queue, number.isMultiple(of: 2) ? .normal : .low) { log.append("\(number)") }
        }
        // When
        queue.isSuspended = false
        // Then: each priority in the order of enqueueing.
        #expect(await eventually { log.entries.count == 40 })
        let expected = Array(stride(from: 0, to: 40, by: 2)) + Array(stride(from: 1, to: 40, by: 2))
        #expect(log.entries == expected.map(String.init))
    }

    @Test func raisingAWaitingItemsPriorityMovesItAhead() async {
        // Given
        let queue = WorkQueue(name: "test-raise", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        let a = enqueue(.async, on: queue, .normal) { log.append("a") }
        _ = enqueue(.async, on: queue, .normal) { log.append("b") }
        let c = enqueue(.async, on: queue, .normal) { log.append("c") }
        _ = enqueue(.async, on: queue, .high) { log.append("d") }
        // When: c moves to the back of high; a is set to the priority it has.
        c.setPriority(.high)
        a.setPriority(.normal)
        queue.isSuspended = false
        // Then: a keeps its place; c runs after d, which was high before it.
        #expect(await eventually { log.entries.count == 4 })
        #expect(log.entries == ["d", "c", "a", "b"])
        #expect(c.priority == .high)
        #expect(queue.waitingCount == 0)
    }

    @Test func loweringMovesItBack() async {
        // Given
        let queue = WorkQueue(name: "test-lower", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        let a = enqueue(.blocking, on: queue, .normal) { log.append("a") }
        _ = enqueue(.blocking, on: queue, .normal) { log.append("b") }
        _ = enqueue(.blocking, on: queue, .low) { log.append("e") }
        _ = enqueue(.blocking, on: queue, .normal) { log.append("c") }
        // When
        a.setPriority(.low)
        queue.isSuspended = false
        // Then: a goes after e, which was low before it.
        #expect(await eventually { log.entries.count == 4 })
        #expect(log.entries == ["b", "c", "e", "a"])
        // Once it has run, a priority change has no effect.
        a.setPriority(.veryHigh)
        #expect(a.priority == .low)
        #expect(a.state == .finished)
    }

    @Test(arguments: Kind.allCases)
    func cancelledWaitingItemNeverRuns(kind: Kind) async {
        // Given: b holds a token in its closure.
        let queue = WorkQueue(name: "test-cancel", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        let a = enqueue(kind, on: queue, .normal) { log.append("a") }
        var token: Token? = Token()
        weak let weakToken = token
        let b = enqueue(kind, on: queue, .high) { [token] in log.append("b \(token!)") }
        token = nil
        let c = enqueue(kind, on: queue, .normal) { log.append("c") }
        // When
        b.cancel()
        // Then: b leaves at once, its work released; the others run, and b never does.
        #expect(b.state == .cancelled)
        #expect(weakToken == nil)
        #expect(queue.waitingCount == 2)
        queue.isSuspended = false
        #expect(await eventually { a.state == .finished && c.state == .finished })
        #expect(log.entries == ["a", "c"])
        #expect(b.state == .cancelled)
        // Cancelling after the run, or twice, changes nothing.
        a.cancel()
        b.cancel()
        #expect(a.state == .finished)
        #expect(b.state == .cancelled)
        #expect(queue.operationCount == 0)
    }

    @Test func blockingWorkRunsOffTheCooperativePool() async throws {
        // Given: more blocking bodies than the cooperative pool has threads,
        // each waiting at a gate that opens only after all of them are in.
        let width = max(4, ProcessInfo.processInfo.activeProcessorCount + 2)
        let queue = WorkQueue(name: "offpool", maxConcurrentOperationCount: width)
        let entered = Counter(), done = Counter(), inTask = Counter(), timedOut = Counter()
        let threadNames = Log()
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<width {
            queue.enqueueBlocking(priority: .normal) {
                threadNames.append(Thread.current.name ?? "")
                if withUnsafeCurrentTask(body: { $0 != nil }) { inTask.add(1) }
                entered.add(1)
                // The timeout only unblocks a broken build, which then fails below.
                if gate.wait(timeout: .now() + 60) == .timedOut { timedOut.add(1) }
                done.add(1)
            }
        }
        // When: all of them block at once…
        #expect(await eventually { entered.value == width })
        // …Swift concurrency still makes progress.
        try await Task.sleep(for: .milliseconds(1))
        let sum = await withTaskGroup(of: Int.self) { group in
            for number in 1...100 { group.addTask { await Task.yield(); return number } }
            return await group.reduce(0, +)
        }
        #expect(sum == 5050)
        // Then: each ran on its own dedicated, named thread, outside any task.
        let names = threadNames.entries
        #expect(names.allSatisfy { $0.hasPrefix("warmer.") })
        #expect(Set(names) == Set((1...width).map { BlockingThreadPool.threadName(queueName: "offpool", number: $0) }))
        #expect(inTask.value == 0)
        #expect(queue.threadCount == width)
        for _ in 0..<width { gate.signal() }
        #expect(await eventually(timeout: .seconds(90)) { done.value == width && queue.runningCount == 0 })
        #expect(timedOut.value == 0)
    }

    @Test func threadNamesFitLinuxsLimit() {
        #expect(BlockingThreadPool.threadName(queueName: "io", number: 3) == "warmer.io.3")
        #expect(BlockingThreadPool.threadName(queueName: "decode", number: 1) == "warmer.decode.1")
        #expect(BlockingThreadPool.threadName(queueName: "processing", number: 12) == "warmer.proce.12")
        #expect(BlockingThreadPool.threadName(queueName: "déjà-vu-queue", number: 1).utf8.count <= 15)
    }

    @Test func raisingTheLimitStartsWaitingWork() async {
        // Given: one slot, four operations holding their slot until told.
        let queue = WorkQueue(name: "test-raise-limit", maxConcurrentOperationCount: 1)
        let holders = Holders()
        for label in ["a", "b", "c", "d"] { holders.enqueue(label, on: queue) }
        #expect(queue.runningCount == 1)
        #expect(queue.waitingCount == 3)
        // When
        queue.maxConcurrentOperationCount = 3
        // Then
        #expect(await eventually { queue.runningCount == 3 })
        #expect(queue.waitingCount == 1)
        #expect(holders.started == ["a", "b", "c"])
        for label in ["a", "b", "c", "d"] { #expect(await holders.finish(label)) }
        #expect(queue.operationCount == 0)
    }

    @Test func finishCalledTwiceReleasesOneSlot() async {
        // Given: two slots, both held, two waiting.
        let queue = WorkQueue(name: "test-finish-twice", maxConcurrentOperationCount: 2)
        let holders = Holders()
        for label in ["a", "b", "c", "d"] { holders.enqueue(label, on: queue) }
        #expect(holders.started == ["a", "b"])
        // When: a's finish is called twice.
        #expect(await holders.finish("a"))
        holders.finishAgain("a")
        // Then: only c took the freed slot.
        #expect(await eventually { holders.started.count == 3 })
        #expect(holders.started == ["a", "b", "c"])
        #expect(queue.runningCount == 2)
        #expect(queue.waitingCount == 1)
        for label in ["b", "c", "d"] { #expect(await holders.finish(label)) }
        #expect(queue.operationCount == 0)
    }
}

extension WorkQueueTests {
    @Test func synchronousFinishesDrainInALoopNotARecursion() {
        // Given: 100 000 operations that finish inside `start`, behind one slot.
        let queue = WorkQueue(name: "test-loop", maxConcurrentOperationCount: 1)
        let done = Counter()
        queue.isSuspended = true
        for _ in 0..<100_000 { queue.enqueue(priority: .normal) { finish in done.add(1); finish() } }
        // When: this thread starts them all, one after another (recursion would overflow the stack).
        queue.isSuspended = false
        // Then
        #expect(done.value == 100_000)
        #expect(queue.operationCount == 0)
    }

    @Test func manyCancelsAndMovesKeepOrderAndCounts() async {
        // Given: 2 000 waiting items, all but 20 cancelled, the 20 moved 300 times
        // (thousands of stale entries, enough for compactions).
        let queue = WorkQueue(name: "test-stale", maxConcurrentOperationCount: 1)
        let log = Log()
        queue.isSuspended = true
        let items = (0..<2_000).map { number in enqueue(.async, on: queue, .normal) { log.append("\(number)") } }
        let kept = Array(stride(from: 0, to: 2_000, by: 100))
        for (number, item) in items.enumerated() where !kept.contains(number) { item.cancel() }
        for round in 0..<300 {
            for number in kept { items[number].setPriority(round.isMultiple(of: 2) ? .high : .low) }
        }
        items[1_000].setPriority(.veryHigh)
        #expect(queue.waitingCount == 20)
        // When
        queue.isSuspended = false
        // Then: 1000 first, the rest in the order of their last move.
        #expect(await eventually { log.entries.count == 20 })
        #expect(log.entries == (["1000"] + kept.filter { $0 != 1_000 }.map(String.init)))
        #expect(queue.operationCount == 0)
    }

    @Test func everyItemRunsExactlyOnceUnderStress() async {
        // Given: 10 000 operations of three kinds (blocking, finishing inside
        // `start`, finishing from a task) from 8 tasks at random priorities,
        // some moved and every tenth cancelled.
        let total = 10_000, limit = 4
        let queue = WorkQueue(name: "test-stress", maxConcurrentOperationCount: limit)
        let runs = Runs(count: total)
        let running = Counter(), maxRunning = Counter()
        let items = await withTaskGroup(of: [(Int, WorkItem)].self) { group in
            for producer in 0..<8 {
                group.addTask {
                    var mine: [(Int, WorkItem)] = []
                    for index in stride(from: producer, to: total, by: 8) {
                        @Sendable func body() {
                            maxRunning.raise(to: running.add(1))
                            running.add(-1)
                            runs.record(index)
                        }
                        let priority = ImagePriority.allCases.randomElement()!
                        let item = switch index % 3 {
                        case 0: queue.enqueueBlocking(priority: priority, body)
                        case 1: queue.enqueue(priority: priority) { finish in body(); finish() }
                        default: queue.enqueue(priority: priority) { finish in Task { body(); finish() } }
                        }
                        if index.isMultiple(of: 7) { item.setPriority(ImagePriority.allCases.randomElement()!) }
                        if index.isMultiple(of: 10) { item.cancel() }
                        mine.append((index, item))
                    }
                    return mine
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        // When: everything not cancelled has run.
        let cancelled = items.filter { $0.1.state == .cancelled }.count
        #expect(await eventually(timeout: .seconds(60)) { runs.total == total - cancelled && queue.operationCount == 0 })
        // Then: each ran once, or never if it was cancelled while waiting.
        let counts = runs.counts
        let wrong = items.filter { index, item in
            counts[index] != (item.state == .cancelled ? 0 : 1) || (item.state != .cancelled && item.state != .finished)
        }
        #expect(items.count == total)
        #expect(wrong.isEmpty)
        #expect(maxRunning.value <= limit)
        #expect(queue.threadCount <= limit)
    }

    /// Enqueues `body` as an operation of `kind`. The asynchronous kind
    /// reads the queue in `start`, which would deadlock if its lock were held.
    @discardableResult
    private func enqueue(
        _ kind: Kind, on queue: WorkQueue, _ priority: ImagePriority, _ body: @escaping @Sendable () -> Void
    ) -> WorkItem {
        switch kind {
        case .async:
            queue.enqueue(priority: priority) { finish in
                _ = queue.runningCount
                body()
                finish()
            }
        case .blocking:
            queue.enqueueBlocking(priority: priority, body)
        }
    }
}
