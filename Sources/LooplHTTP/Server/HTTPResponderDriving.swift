import Glibc

/// The connection thread's side of a responder: it starts the handler's task, writes the outbox,
/// keeps streams alive and reports hang-ups.
extension HTTPResponder {
    /// What the connection thread needs to decide its next step.
    struct Snapshot {
        /// Whether the client is still there.
        var connected: Bool
        /// Whether the handler has returned.
        var handlerReturned: Bool
        /// How far the answer got.
        var phase: Phase
        /// Whether bytes wait to be written.
        var pending: Bool
        /// Whether the connection closes after this answer.
        var closeAfter: Bool
        /// When a keep-alive chunk is due, for an open stream that has one.
        var keepAliveDue: ContinuousClock.Instant?
    }

    /// The state now.
    var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(connected: state.connected, handlerReturned: state.handlerReturned, phase: state.phase,
                     pending: !state.outbox.isEmpty, closeAfter: state.closeAfter,
                     keepAliveDue: state.phase == .streaming ? state.keepAlive.map { state.lastActivity + $0.interval } : nil)
        }
    }

    /// Runs `handler` on this request in a task of its own; the responder hears when it returns.
    func start(_ handler: @escaping HTTPServer.Handler) {
        let task = Task { [self] in
            await handler(request, self)
            state.withLock { $0.handlerReturned = true }
            wakeup.signal()
        }
        let cancel = state.withLock { state -> Bool in
            if state.handlerReturned { return false }
            state.task = task
            return !state.connected
        }
        if cancel { task.cancel() }
    }

    /// The client is gone (or must be let go): no more bytes are queued, and the handler's task is cancelled.
    func disconnect() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.connected = false
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// Writes what the socket takes of the outbox: false when the socket failed.
    func write(to fd: Int32) -> (ok: Bool, blocked: Bool) {
        state.withLock { state in
            let sent = state.outbox.write { Socket.send(fd, $0) }
            return (sent >= 0, sent >= 0 && !state.outbox.isEmpty)
        }
    }

    /// Queues the stream's keep-alive chunk when nothing was sent for its interval.
    func keepAliveIfDue(now: ContinuousClock.Instant) {
        state.withLock { state in
            guard state.phase == .streaming, state.connected, let keepAlive = state.keepAlive,
                  now >= state.lastActivity + keepAlive.interval else { return }
            state.outbox.append(request.version == .http1_1 ? ChunkedEncoder.chunk(keepAlive.bytes) : keepAlive.bytes)
            state.lastActivity = now
        }
    }

    /// Completes what a returned handler left open: no answer becomes a 500, an open stream is finished.
    func completeAfterHandler() {
        switch snapshot.phase {
        case .waiting:
            let message = "The server's handler for \(request.method) \(request.path) returned without an answer."
            let (contentType, body) = errorBody(500, message)
            respond(status: 500, headers: [("Content-Type", contentType)], body: body)
        case .streaming:
            finish()
        case .complete:
            break
        }
    }
}
