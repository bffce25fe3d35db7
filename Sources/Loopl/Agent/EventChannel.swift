import Synchronization

/// A buffered, single-consumer async sequence. Unlike AsyncStream, the consumer's cancellation
/// does not end it at once: it calls `onCancel`, and the producer sends its last events and finishes.
public final class EventChannel<Element: Sendable>: AsyncSequence, Sendable {
    private struct State {
        var buffer: [Element] = []
        var finished = false
        var failure: (any Error)?
        var waiter: CheckedContinuation<Void, Never>?
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    private enum Step { case element(Element), end((any Error)?), wait }

    public init() {}

    /// Called once when the consuming task is cancelled.
    func setOnCancel(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.onCancel = action }
    }

    func send(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.buffer.append(element)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func finish(throwing error: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: EventChannel

        public mutating func next() async throws -> Element? {
            try await channel.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: self) }

    private func next() async throws -> Element? {
        while true {
            let step = state.withLock { state -> Step in
                if !state.buffer.isEmpty { return .element(state.buffer.removeFirst()) }
                if state.finished {
                    defer { state.failure = nil }
                    return .end(state.failure)
                }
                return .wait
            }
            switch step {
            case .element(let element): return element
            case .end(let error?): throw error
            case .end(nil): return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = state.withLock { state -> Bool in
                            if !state.buffer.isEmpty || state.finished { return true }
                            state.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    let action = state.withLock { state in
                        defer { state.onCancel = nil }
                        return state.onCancel
                    }
                    action?()
                }
            }
        }
    }
}
