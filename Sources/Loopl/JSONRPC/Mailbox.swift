import Synchronization

/// Why a ``Mailbox`` ended.
package enum MailboxEnd: Error, Sendable {
    /// The worker's output ended; its exit status, when it had exited by then.
    case exited(Int32?)
    /// The worker broke the protocol: what it did.
    case violation(String)
    /// The host ended the connection.
    case stopped
}

/// Nothing arrived within the time asked for.
package struct MailboxTimeout: Error {}

/// The messages a worker sent, in order, for one reader at a time; ends with a ``MailboxEnd``.
package final class Mailbox: Sendable {
    private struct State {
        var queue: [(message: RPCMessage, bytes: Int)] = []
        var head = 0
        var queuedBytes = 0
        var end: MailboxEnd?
        var waiter: (token: Int, continuation: CheckedContinuation<RPCMessage, any Error>)?
        var nextToken = 0
        /// A timeout or cancellation that came before its receiver started waiting.
        var early: (token: Int, error: any Error)?
    }

    private let state = Mutex(State())

    /// The most a peer's undelivered messages may weigh, in bytes of their lines.
    package let limit: Int

    /// The default for ``limit``, 32 MiB: twice the longest line, so one line always fits.
    package static let defaultLimit = 2 * LineSplitter.defaultLimit

    package init(limit: Int = Mailbox.defaultLimit) { self.limit = limit }

    /// Delivers a message (ignored after the end) that took `bytes` bytes on the wire. Returns
    /// false, keeping nothing, when the undelivered messages would weigh more than ``limit``.
    @discardableResult
    package func put(_ message: RPCMessage, bytes: Int = 0) -> Bool {
        var accepted = true
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.end == nil else { return nil }
            if let waiter = state.waiter.take() { return waiter.continuation }
            guard state.queuedBytes + bytes <= limit else {
                accepted = false
                return nil
            }
            state.queue.append((message, bytes))
            state.queuedBytes += bytes
            return nil
        }
        waiter?.resume(returning: message)
        return accepted
    }

    /// Ends the mailbox; the first end wins. Messages already queued are still delivered.
    package func finish(_ end: MailboxEnd) {
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            return state.waiter.take()?.continuation
        }
        waiter?.resume(throwing: end)
    }

    /// How it ended, once it has.
    package var end: MailboxEnd? { state.withLock { $0.end } }

    /// The first undelivered message, without taking it.
    package var pending: RPCMessage? { state.withLock { $0.head < $0.queue.count ? $0.queue[$0.head].message : nil } }

    /// Takes the first undelivered message, if there is one.
    package func takePending() -> RPCMessage? {
        state.withLock { state in state.head < state.queue.count ? dequeue(&state) : nil }
    }

    /// The next message. Throws ``MailboxTimeout`` after `timeout` (nil: no limit), the
    /// ``MailboxEnd`` once the queue is empty and ended, and CancellationError when `cancellable`
    /// and the task is cancelled.
    package func receive(timeout: Duration?, cancellable: Bool) async throws -> RPCMessage {
        if let ready = try takeReady() { return ready }
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        let timer = timeout.map { timeout in
            Task {
                try await Task.sleep(for: timeout)
                self.abandon(token, with: MailboxTimeout())
            }
        }
        defer { timer?.cancel() }
        let wait = {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RPCMessage, any Error>) in
                let outcome = self.state.withLock { state -> Result<RPCMessage, any Error>? in
                    if state.head < state.queue.count { return .success(self.dequeue(&state)) }
                    if let end = state.end { return .failure(end) }
                    if let early = state.early, early.token == token {
                        state.early = nil
                        return .failure(early.error)
                    }
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

    /// Checks one line of a peer's output (UTF-8, JSON, JSON-RPC 2.0) and delivers its message;
    /// returns what is wrong with the line, if anything. Blank lines are skipped.
    package func deliver(_ piece: LineSplitter.Piece) -> String? {
        switch Self.message(in: piece) {
        case .success(let message):
            guard let message else { return nil }
            if case .line(let bytes) = piece, !put(message, bytes: bytes.count) {
                return "it wrote more than \(limit / 1024 / 1024) MiB of messages that the host has not read yet"
            }
            return nil
        case .failure(let problem):
            return problem.reason
        }
    }

    /// The message one line holds (nil for a blank line), or what is wrong with the line: too
    /// long, not UTF-8 (never decoded lossily), not JSON, or not JSON-RPC 2.0.
    package static func message(in piece: LineSplitter.Piece) -> Result<RPCMessage?, NotJSONRPC> {
        switch piece {
        case .tooLong:
            return .failure(NotJSONRPC(reason: "it wrote a line longer than \(LineSplitter.defaultLimit / 1024 / 1024) MiB"))
        case .line(let bytes):
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .success(nil) }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(NotJSONRPC(reason: "it wrote bytes that are not UTF-8"))
            }
            let value: JSONValue
            do { value = try JSONValue(parsing: text) } catch {
                return .failure(NotJSONRPC(reason: "it wrote a line that is not JSON: \(excerpt(text))"))
            }
            switch RPCMessage.read(value) {
            case .success(let message):
                return .success(message)
            case .failure(let problem):
                return .failure(NotJSONRPC(reason: "it wrote a message that is not JSON-RPC 2.0 (\(problem.reason)): \(excerpt(text))"))
            }
        }
    }

    /// The first 120 characters of `text`, for messages.
    package static func excerpt(_ text: String) -> String {
        text.count <= 120 ? text : String(text.prefix(120)) + "…"
    }

    private func takeReady() throws -> RPCMessage? {
        try state.withLock { state in
            if state.head < state.queue.count { return dequeue(&state) }
            if let end = state.end { throw end }
            return nil
        }
    }

    private func dequeue(_ state: inout State) -> RPCMessage {
        let (message, bytes) = state.queue[state.head]
        state.queuedBytes -= bytes
        state.head += 1
        if state.head == state.queue.count {
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return message
    }

    private func abandon(_ token: Int, with error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<RPCMessage, any Error>? in
            guard state.waiter?.token == token else {
                // The receiver has not started waiting yet (a zero timeout): it fails as it starts.
                if token == state.nextToken { state.early = (token, error) }
                return nil
            }
            return state.waiter.take()?.continuation
        }
        waiter?.resume(throwing: error)
    }
}
