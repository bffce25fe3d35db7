import Synchronization

/// What the accept thread, the connection threads and `shutdown` share: the handler, the limits,
/// the open connections and the shutdown's deadline.
final class HTTPServerCore: Sendable {
    /// The connections and the shutdown's progress.
    struct State {
        /// The open connections, by number, with the wake-up of each one's thread.
        var connections: [Int: Wakeup] = [:]
        /// The last number given.
        var nextID = 0
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
    let state = Mutex(State())

    /// The shared state of a server starting with these.
    init(port: Int, limits: HTTPLimits, headers: [(String, String)], handler: @escaping HTTPServer.Handler,
         errorBody: @escaping HTTPServer.ErrorBody) {
        self.port = port
        self.limits = limits
        self.headers = headers
        self.handler = handler
        self.errorBody = errorBody
    }

    /// Counts a new connection in; nil when `maxConnections` are open or the server is stopping.
    func register(_ wakeup: Wakeup) -> Int? {
        state.withLock { state in
            guard state.stopDeadline == nil, state.connections.count < limits.maxConnections else { return nil }
            state.nextID += 1
            state.connections[state.nextID] = wakeup
            return state.nextID
        }
    }

    /// Counts a connection out, once its thread is done with it.
    func unregister(_ id: Int) {
        resumeIfStopped { $0.connections[id] = nil }
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

    /// The number of connections open.
    var connectionCount: Int { state.withLock { $0.connections.count } }

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
