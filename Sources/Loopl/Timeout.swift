import Synchronization

/// An operation did not finish in time.
struct TimeoutError: Error {}

/// Runs `body`, and throws ``TimeoutError`` once `limit` has passed, even when `body` ignores
/// cancellation (it is cancelled and left to end on its own).
func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let work = Task { try await body() }
    let outcome = ResumeOnce<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.set(continuation)
            Task {
                outcome.resume(with: await work.result)
            }
            Task {
                try? await Task.sleep(for: limit)
                work.cancel()
                outcome.resume(with: .failure(TimeoutError()))
            }
        }
    } onCancel: {
        work.cancel()
        outcome.resume(with: .failure(CancellationError()))
    }
}

/// A continuation that the first of several racers resumes.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, early: Result<T, any Error>?)>((nil, nil))

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            if state.continuation == nil, state.early == nil { state.early = result }
            return state.continuation.take()
        }
        continuation?.resume(with: result)
    }
}

extension Duration {
    /// The duration in seconds.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    /// The duration in milliseconds.
    package var milliseconds: Double { seconds * 1000 }
}
