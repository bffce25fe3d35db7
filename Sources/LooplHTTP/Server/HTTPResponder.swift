import Synchronization

/// Answers one request: a whole response, or a chunked stream of pieces. Calls only queue bytes in
/// the connection's bounded outbox and wake its thread, which writes them; none blocks.
package final class HTTPResponder: Sendable {
    /// Where a response is.
    enum Phase: Sendable { case waiting, streaming, complete }

    /// The outbox and what the connection thread and the handler share.
    struct State: Sendable {
        /// The bytes queued for the client and not yet written.
        var outbox = HTTPOutbox()
        /// How far the answer got.
        var phase = Phase.waiting
        /// False once the client hung up or was dropped.
        var connected = true
        /// Whether the handler's task has returned.
        var handlerReturned = false
        /// Whether the connection closes after this response.
        var closeAfter = false
        /// When the stream last queued bytes, for its keep-alive.
        var lastActivity = ContinuousClock.now
        /// The open stream's keep-alive interval and bytes.
        var keepAlive: (interval: Duration, bytes: [UInt8])?
        /// The handler's task, to cancel when the client leaves.
        var task: Task<Void, Never>?
        /// Headers every answer carries besides its own (the server's, and CORS's for an allowed origin).
        var extraHeaders: [(String, String)] = []
    }

    /// The shared state, behind its lock.
    let state = Mutex(State())
    /// The connection thread's wake-up, signalled whenever bytes are queued.
    let wakeup: Wakeup
    /// The request answered.
    let request: HTTPRequest
    /// The port the server listens on: the one a client names in its `Host`.
    package let port: Int
    /// The server's limits (`maxUnsentBytes`).
    let limits: HTTPLimits
    /// The server's error bodies, for the 500 of a handler that did not answer.
    let errorBody: HTTPServer.ErrorBody
    /// Whether the server is shutting down (answers then close their connection).
    let stopping: @Sendable () -> Bool

    /// A responder for `request` to the server on `port`, on the connection woken by `wakeup`; its
    /// answer carries `headers`.
    init(request: HTTPRequest, port: Int, limits: HTTPLimits, headers: [(String, String)], errorBody: @escaping HTTPServer.ErrorBody,
         wakeup: Wakeup, stopping: @escaping @Sendable () -> Bool) {
        self.request = request
        self.port = port
        self.limits = limits
        self.errorBody = errorBody
        self.wakeup = wakeup
        self.stopping = stopping
        state.withLock { $0.extraHeaders = headers }
    }

    /// Adds `headers` to the answer, whichever the handler sends; call it before answering.
    package func include(headers: [(String, String)]) {
        state.withLock { $0.extraHeaders += headers }
    }

    /// Sends a whole response with `Content-Length`. Only the first answer counts; later ones are ignored.
    package func respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        let keepAlive = request.wantsKeepAlive && !stopping()
        let headers = state.withLock { $0.extraHeaders } + headers
        let head = HTTPResponseHead.bytes(status: status, headers: headers, framing: .length(body.count), keepAlive: keepAlive)
        let sendsBody = request.method != .head && HTTPResponseHead.hasBody(status)
        let queued = state.withLock { state in
            guard state.phase == .waiting, state.connected else { return false }
            state.outbox.append(head)
            if sendsBody { state.outbox.append(body) }
            state.phase = .complete
            state.closeAfter = !keepAlive
            return true
        }
        if queued { wakeup.signal() }
    }

    /// Starts a chunked response (`Transfer-Encoding: chunked`; to an HTTP/1.0 client, a body that
    /// ends with the connection). While the stream is open and nothing was sent for
    /// `keepAlive.interval`, the server sends `keepAlive.bytes` as a chunk (for SSE, `: ping\n\n`).
    package func startStream(status: Int, headers: [(String, String)], keepAlive: (interval: Duration, bytes: [UInt8])? = nil) {
        let chunked = request.version == .http1_1
        let keepOpen = chunked && request.wantsKeepAlive && !stopping()
        let headers = state.withLock { $0.extraHeaders } + headers
        let head = HTTPResponseHead.bytes(status: status, headers: headers, framing: chunked ? .chunked : .close, keepAlive: keepOpen)
        let queued = state.withLock { state in
            guard state.phase == .waiting, state.connected else { return false }
            state.outbox.append(head)
            state.phase = .streaming
            state.closeAfter = !keepOpen
            state.lastActivity = .now
            state.keepAlive = keepAlive.flatMap { $0.bytes.isEmpty || $0.interval <= .zero ? nil : $0 }
            return true
        }
        if queued { wakeup.signal() }
    }

    /// Sends one piece of a started stream; false once the client is gone, or was dropped because
    /// more than `maxUnsentBytes` waited for it, or when no stream is open.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return isStreaming }
        let framed = frame(bytes)
        let (sent, dropped) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard state.phase == .streaming, state.connected else { return (false, nil) }
            if state.outbox.count + framed.count > limits.maxUnsentBytes {
                state.connected = false
                defer { state.task = nil }
                return (false, state.task)
            }
            state.outbox.append(framed)
            state.lastActivity = .now
            return (true, nil)
        }
        dropped?.cancel()
        wakeup.signal()
        return sent
    }

    /// Ends the stream (the terminating zero-length chunk).
    package func finish() {
        let chunked = request.version == .http1_1 && request.method != .head
        let queued = state.withLock { state in
            guard state.phase == .streaming else { return false }
            if chunked, state.connected { state.outbox.append(ChunkedEncoder.lastChunk) }
            state.phase = .complete
            return true
        }
        if queued { wakeup.signal() }
    }

    /// Whether the client is still there: false once it hung up or was dropped.
    package var isConnected: Bool { state.withLock { $0.connected } }

    private var isStreaming: Bool { state.withLock { $0.phase == .streaming && $0.connected } }

    /// `bytes` as they go on the wire: a chunk, or raw to an HTTP/1.0 client; nothing for HEAD.
    private func frame(_ bytes: [UInt8]) -> [UInt8] {
        if request.method == .head { return [] }
        return request.version == .http1_1 ? ChunkedEncoder.chunk(bytes) : bytes
    }
}
