import Synchronization

/// What the accept thread, the connection threads and `shutdown` share: the handler, the limits,
/// the open connections (``ConnectionTable``) and the shutdown's deadline.
final class HTTPServerCore: Sendable {
    /// The connections and the shutdown's progress.
    struct State {
        /// The connections counted open, idle or busy.
        var table: ConnectionTable
        /// The connection threads running, by number, with the wake-up of each (a parked
        /// connection has none until its first byte).
        var connections: [Int: Wakeup] = [:]
        /// Until when a shutdown lets requests in flight run.
        var stopDeadline: ContinuousClock.Instant?
        /// Whether the accept thread has closed the listening socket.
        var acceptEnded = false
        /// The `shutdown` calls waiting for the threads to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The port the server listens on.
    let port: Int
    /// The bounds every connection keeps.
    let limits: HTTPLimits
    /// The headers every answer carries.
    let headers: [(String, String)]
    /// Answers each request.
    let handler: HTTPServer.Handler
    /// The bodies of the server's own error answers.
    let errorBody: HTTPServer.ErrorBody
    /// The shared state, behind its lock.
    let state: Mutex<State>

    /// The shared state of a server starting with these.
    init(port: Int, limits: HTTPLimits, headers: [(String, String)], handler: @escaping HTTPServer.Handler,
         errorBody: @escaping HTTPServer.ErrorBody) {
        self.port = port
        self.limits = limits
        self.headers = headers
        self.handler = handler
        self.errorBody = errorBody
        state = Mutex(State(table: ConnectionTable(capacity: limits.maxConnections)))
    }

    /// Counts a new connection in (busy when its first byte is already there), closing the one idle
    /// longest when the server is full: its thread is woken to close it, or, when it has none yet
    /// (parked on the accept thread), it is returned for the caller to close. Nil when every
    /// connection is busy or the server is stopping.
    func register(busy: Bool) -> (id: Int, parkedVictim: Int?)? {
        let (result, woken) = state.withLock { state -> ((id: Int, parkedVictim: Int?)?, [Wakeup]) in
            guard state.stopDeadline == nil else { return (nil, []) }
            let pressed = state.table.isUnderPressure
            guard let (id, closing) = state.table.open(now: .now, busy: busy) else { return (nil, []) }
            let victim = closing.flatMap { state.connections[$0] }
            let parked = victim == nil ? closing : nil
            // Every thread looks again at its deadline when the idle limits have just shortened.
            if !pressed, state.table.isUnderPressure { return ((id, parked), Array(state.connections.values)) }
            return ((id, parked), victim.map { [$0] } ?? [])
        }
        for other in woken { other.signal() }
        return result
    }

    /// Connection `id` gets a thread, woken through `wakeup`; false when it was closed meanwhile.
    func attach(_ id: Int, _ wakeup: Wakeup) -> Bool {
        state.withLock { state in
            guard state.table.contains(id) else { return false }
            state.connections[id] = wakeup
            return true
        }
    }

    /// Marks `id` busy at its request's first byte; false when it was closed to make room.
    func begin(_ id: Int) -> Bool { state.withLock { $0.table.begin(id) } }

    /// Marks `id` idle once its answer is sent.
    func rest(_ id: Int) { state.withLock { $0.table.rest(id, now: .now) } }

    /// Whether `id` is still counted open (false once it was closed to make room).
    func isOpen(_ id: Int) -> Bool { state.withLock { $0.table.contains(id) } }

    /// How long an idle connection may wait for a request's first byte: `normal`, or
    /// `pressureIdleTimeout` when it is shorter and the server is nearly full.
    func idleLimit(_ normal: Duration) -> Duration {
        state.withLock { $0.table.isUnderPressure } ? min(normal, limits.pressureIdleTimeout) : normal
    }

    /// Counts a connection out, once its thread is done with it.
    func unregister(_ id: Int) {
        resumeIfStopped { state in
            state.table.remove(id)
            state.connections[id] = nil
        }
    }

    /// The accept thread is done.
    func acceptDidEnd() {
        resumeIfStopped { $0.acceptEnded = true }
    }

    /// Changes the state, then wakes `shutdown` when nothing runs any more.
    private func resumeIfStopped(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            guard state.acceptEnded, state.connections.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// When a shutdown lets requests in flight run until; nil while the server runs.
    var stopDeadline: ContinuousClock.Instant? { state.withLock { $0.stopDeadline } }

    /// Whether a shutdown has begun.
    var isStopping: Bool { stopDeadline != nil }

    /// The number of connections open (parked or with a thread).
    var connectionCount: Int { state.withLock { $0.table.count } }

    /// Starts stopping (the first call's deadline counts) and wakes every thread to see it.
    func stop(deadline: ContinuousClock.Instant) -> [Wakeup] {
        state.withLock { state in
            if state.stopDeadline == nil { state.stopDeadline = deadline }
            return Array(state.connections.values)
        }
    }

    /// Returns when the accept thread and every connection thread have ended.
    func waitUntilStopped() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.acceptEnded, state.connections.isEmpty { return true }
                state.waiters.append(waiter)
                return false
            }
            if done { waiter.resume() }
        }
    }

    /// A server error answer, with `Connection: close`.
    func errorResponse(_ status: Int, _ message: String) -> [UInt8] {
        let (contentType, body) = errorBody(status, message)
        return HTTPResponseHead.bytes(status: status, headers: headers + [("Content-Type", contentType)],
                                      framing: .length(body.count), keepAlive: false) + body
    }
}
