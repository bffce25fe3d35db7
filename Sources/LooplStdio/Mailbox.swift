import Synchronization

/// Why a ``Mailbox`` ended.
enum MailboxEnd: Error, Sendable {
    /// The worker's output ended; its exit status, when it had exited by then.
    case exited(Int32?)
    /// The worker broke the protocol: what it did.
    case violation(String)
    /// The host ended the connection.
    case stopped
}

/// Nothing arrived within the time asked for.
struct MailboxTimeout: Error {}

/// The messages a worker sent, in order, for one reader at a time; ends with a ``MailboxEnd``.
final class Mailbox: Sendable {
    private struct State {
        var queue: [RPCMessage] = []
        var head = 0
        var end: MailboxEnd?
        var waiter: (token: Int, continuation: CheckedContinuation<RPCMessage, any Error>)?
        var nextToken = 0
    }

    private let state = Mutex(State())

    /// Delivers a message (ignored after the end).
    func put(_ message: RPCMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter.take() { return waiter.continuation }
            state.queue.append(message)
            return nil
        }
        waiter?.resume(returning: message)
    }

    /// Ends the mailbox; the first end wins. Messages already queued are still delivered.
    func finish(_ end: MailboxEnd) {
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            return state.waiter.take()?.continuation
        }
        waiter?.resume(throwing: end)
    }

    /// How it ended, once it has.
    var end: MailboxEnd? { state.withLock { $0.end } }

    /// The first undelivered message, without taking it.
    var pending: RPCMessage? { state.withLock { $0.head < $0.queue.count ? $0.queue[$0.head] : nil } }

    /// Takes the first undelivered message, if there is one.
    func takePending() -> RPCMessage? {
        state.withLock { state in state.head < state.queue.count ? dequeue(&state) : nil }
    }

    /// The next message. Throws ``MailboxTimeout`` after `timeout`, the ``MailboxEnd`` once the
    /// queue is empty and ended, and CancellationError when `cancellable` and the task is cancelled.
    func receive(timeout: Duration, cancellable: Bool) async throws -> RPCMessage {
        if let ready = try takeReady() { return ready }
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.abandon(token, with: MailboxTimeout())
        }
        defer { timer.cancel() }
        let wait = {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RPCMessage, any Error>) in
                let outcome = self.state.withLock { state -> Result<RPCMessage, any Error>? in
                    if state.head < state.queue.count { return .success(self.dequeue(&state)) }
                    if let end = state.end { return .failure(end) }
                    state.waiter = (token, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        }
        guard cancellable else { return try await wait() }
        if Task.isCancelled { throw CancellationError() }
        return try await withTaskCancellationHandler(operation: wait) {
            self.abandon(token, with: CancellationError())
        }
    }

    private func takeReady() throws -> RPCMessage? {
        try state.withLock { state in
            if state.head < state.queue.count { return dequeue(&state) }
            if let end = state.end { throw end }
            return nil
        }
    }

    private func dequeue(_ state: inout State) -> RPCMessage {
        let message = state.queue[state.head]
        state.head += 1
        if state.head == state.queue.count {
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return message
    }

    private func abandon(_ token: Int, with error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.waiter?.token == token else { return nil }
            return state.waiter.take()?.continuation
        }
        waiter?.resume(throwing: error)
    }
}
