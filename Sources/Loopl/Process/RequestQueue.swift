import Synchronization

/// Admits the requests on one model: up to `parallel` run at once, later ones wait in arrival
/// order, at most `maxQueue` of them; one more gets ``LooplError/Code/busy`` at once.
///
/// Every backend serves its requests through one of these. `parallel` 1 makes it a lock.
package final class RequestQueue: Sendable {
    private struct Waiter {
        let token: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var parallel: Int
        let maxQueue: Int
        var running = 0
        var waiters: [Waiter] = []
        var nextToken = 0
    }

    private let state: Mutex<State>

    /// A queue that runs `parallel` requests at once and keeps up to `maxQueue` waiting.
    package init(parallel: Int = 1, maxQueue: Int = .max) {
        state = Mutex(State(parallel: max(parallel, 1), maxQueue: max(maxQueue, 0)))
    }

    /// How many requests run at once.
    package var parallel: Int { state.withLock { $0.parallel } }

    /// How many requests run now.
    package var running: Int { state.withLock { $0.running } }

    /// How many requests wait for a place.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Changes how many requests run at once (a worker may declare fewer than configured);
    /// waiters are let in when it grows.
    package func setParallel(_ parallel: Int) {
        let admitted = state.withLock { state -> [Waiter] in
            state.parallel = max(parallel, 1)
            return Self.admit(&state)
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    /// Waits for a place. Throws `busy` when the queue is full, and `CancellationError` when the
    /// task is cancelled while it waits. Each successful call needs one ``release()``.
    package func acquire() async throws {
        if Task.isCancelled { throw CancellationError() }
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Bool? in
                    if state.running < state.parallel, state.waiters.isEmpty {
                        state.running += 1
                        return true
                    }
                    guard state.waiters.count < state.maxQueue else { return nil }
                    state.waiters.append(Waiter(token: token, continuation: continuation))
                    return false
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: break
                case nil:
                    continuation.resume(throwing: LooplError(.busy,
                        "The model is serving \(parallel) requests and \(state.withLock { $0.maxQueue }) are waiting: try again later, or raise 'parallel' or 'maxQueue'."))
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes a place if one is free and nobody waits.
    package func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.running < state.parallel, state.waiters.isEmpty else { return false }
            state.running += 1
            return true
        }
    }

    /// Gives a place back, to the longest waiter if there is one.
    package func release() {
        let admitted = state.withLock { state -> [Waiter] in
            state.running = max(state.running - 1, 0)
            return Self.admit(&state)
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    /// Runs `body` in a place of its own.
    package func withPlace<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private static func admit(_ state: inout State) -> [Waiter] {
        var admitted: [Waiter] = []
        while state.running < state.parallel, !state.waiters.isEmpty {
            state.running += 1
            admitted.append(state.waiters.removeFirst())
        }
        return admitted
    }
}
