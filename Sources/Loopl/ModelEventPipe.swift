import Synchronization

/// A model's event stream with back-pressure: the producer yields events and, before it takes
/// more from its engine, waits with ``waitForRoom()`` while ``limit`` bytes of them are unread.
/// When the consumer stops listening (its task is cancelled, or it drops the stream), the
/// producer's task is cancelled and what waits is dropped.
package final class ModelEventPipe: Sendable {
    /// The unread bytes the producer may run ahead by: 4 MiB.
    package static let limit = 4 << 20
    /// Bytes of events yielded and not yet read, over every pipe.
    package static let bufferedBytes = Atomic<Int>(0)

    private struct State {
        var events: [ModelEvent] = []
        var head = 0
        var bytes = 0
        /// Set once the producer is done: nil for success, else its error.
        var end: (any Error)??
        /// The consumer is gone.
        var gone = false
        var producerCancelled = false
        var consumer: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let limit: Int

    private init(limit: Int) { self.limit = limit }

    /// A stream fed by `body` in a task of its own, which finishes when `body` returns or throws
    /// (whatever it throws arrives as a ``LooplError``, as `generating` does).
    package static func stream(limit: Int = ModelEventPipe.limit,
                               _ body: @escaping @Sendable (ModelEventPipe) async throws -> Void)
        -> AsyncThrowingStream<ModelEvent, any Error> {
        let pipe = ModelEventPipe(limit: limit)
        let task = Task {
            do {
                try await body(pipe)
                pipe.finish(nil)
            } catch {
                pipe.finish(LooplError.wrapping(error, as: .generationFailed, "Generation failed: \(error)."))
            }
        }
        let owner = Owner(pipe: pipe, task: task)
        return AsyncThrowingStream(unfolding: { try await owner.pipe.next(onCancel: owner.abandon) })
    }

    /// Queues `event` for the consumer; dropped once the consumer is gone.
    package func yield(_ event: ModelEvent) {
        let size = Self.size(of: event)
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.gone, state.end == nil else { return nil }
            state.events.append(event)
            state.bytes += size
            Self.bufferedBytes.add(size, ordering: .relaxed)
            defer { state.consumer = nil }
            return state.consumer
        }
        waiter?.resume()
    }

    /// Returns once fewer than the limit's bytes are unread, the consumer is gone, or the
    /// calling task is cancelled.
    package func waitForRoom() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.bytes < limit || state.gone || state.producerCancelled { return true }
                    state.producer = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.producerCancelled = true
                defer { state.producer = nil }
                return state.producer
            }
            waiter?.resume()
        }
    }

    private func finish(_ error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            defer { state.consumer = nil }
            return state.consumer
        }
        waiter?.resume()
    }

    /// The consumer is gone: drop what waits and free the producer.
    private func abandon() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.gone = true
            Self.bufferedBytes.subtract(state.bytes, ordering: .relaxed)
            state.bytes = 0
            state.events = []
            state.head = 0
            defer { (state.consumer, state.producer) = (nil, nil) }
            return [state.consumer, state.producer].compactMap { $0 }
        }
        for waiter in waiters { waiter.resume() }
    }

    private enum Step { case event(ModelEvent, CheckedContinuation<Void, Never>?), end((any Error)?), wait }

    private func next(onCancel: @escaping @Sendable () -> Void) async throws -> ModelEvent? {
        while true {
            let step = state.withLock { state -> Step in
                if state.head < state.events.count {
                    let event = state.events[state.head]
                    state.head += 1
                    if state.head == state.events.count || state.head > 1024 {
                        state.events.removeFirst(state.head)
                        state.head = 0
                    }
                    let size = Self.size(of: event)
                    state.bytes -= size
                    Self.bufferedBytes.subtract(size, ordering: .relaxed)
                    guard state.bytes < limit else { return .event(event, nil) }
                    defer { state.producer = nil }
                    return .event(event, state.producer)
                }
                if state.gone { return .end(nil) }
                if let end = state.end {
                    state.end = .some(nil)
                    return .end(end)
                }
                return .wait
            }
            switch step {
            case .event(let event, let producer):
                producer?.resume()
                return event
            case .end(let error?): throw error
            case .end(nil): return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = state.withLock { state -> Bool in
                            if state.head < state.events.count || state.end != nil || state.gone { return true }
                            state.consumer = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    onCancel()
                }
            }
        }
    }

    /// What an event costs the buffer: its text's bytes, and a little for the rest.
    private static func size(of event: ModelEvent) -> Int {
        switch event {
        case .text(let text), .reasoning(let text): 64 + text.utf8.count
        case .toolCall(let call): 64 + call.id.utf8.count + call.name.utf8.count + JSONValue.object(call.arguments).jsonText().utf8.count
        case .metrics: 64
        }
    }

    /// Keeps the producer's task while the stream lives; cancels it when the stream goes.
    private final class Owner: Sendable {
        let pipe: ModelEventPipe
        let task: Task<Void, Never>

        init(pipe: ModelEventPipe, task: Task<Void, Never>) {
            self.pipe = pipe
            self.task = task
        }

        func abandon() {
            task.cancel()
            pipe.abandon()
        }

        deinit { abandon() }
    }
}
