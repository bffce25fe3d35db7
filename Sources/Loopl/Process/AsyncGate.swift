import Synchronization

/// A lock for async code: one holder at a time, waiters served in order.
package final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiters: [(token: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextToken = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Waits for the gate; throws CancellationError when the task is cancelled while waiting.
    package func acquire() async throws {
        if Task.isCancelled { throw CancellationError() }
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let free = state.withLock { state in
                    if !state.held {
                        state.held = true
                        return true
                    }
                    state.waiters.append((token, continuation))
                    return false
                }
                if free { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Takes the gate if it is free.
    package func tryAcquire() -> Bool {
        state.withLock { state in
            if state.held { return false }
            state.held = true
            return true
        }
    }

    /// Passes the gate to the next waiter, or frees it.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
