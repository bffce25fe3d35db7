import Loopl
import Synchronization
import Testing

/// RequestQueue: places, arrival order, the queue bound and cancellation while waiting.
@Suite struct RequestQueueTests {
    @Test func runsParallelThenQueuesInOrderThenRefuses() async throws {
        let queue = RequestQueue(parallel: 2, maxQueue: 2)
        try await queue.acquire()
        try await queue.acquire()
        #expect(queue.running == 2)
        #expect(!queue.tryAcquire())
        let order = Recorder()
        let first = Task { try await queue.acquire(); order.add(1) }
        try await waitUntil { queue.waiting == 1 }
        let second = Task { try await queue.acquire(); order.add(2) }
        try await waitUntil { queue.waiting == 2 }
        await #expect(throws: LooplError.self) { try await queue.acquire() }
        do { try await queue.acquire() } catch let error as LooplError { #expect(error.code == .busy) }
        queue.release()
        try await first.value
        queue.release()
        try await second.value
        #expect(order.values == [1, 2])
        #expect(queue.running == 2)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let queue = RequestQueue(parallel: 1, maxQueue: 4)
        try await queue.acquire()
        let waiter = Task { try await queue.acquire() }
        try await waitUntil { queue.waiting == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(queue.waiting == 0)
        queue.release()
        #expect(queue.tryAcquire())
    }

    @Test func growingLetsWaitersIn() async throws {
        let queue = RequestQueue(parallel: 1)
        try await queue.acquire()
        let waiter = Task { try await queue.acquire() }
        try await waitUntil { queue.waiting == 1 }
        queue.setParallel(2)
        try await waiter.value
        #expect(queue.running == 2)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<2000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }
}

private final class Recorder: Sendable {
    private let state = Mutex<[Int]>([])
    func add(_ value: Int) { state.withLock { $0.append(value) } }
    var values: [Int] { state.withLock { $0 } }
}
