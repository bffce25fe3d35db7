import Glibc

/// One client connection, served on a thread of its own: reads a request, runs the handler in a
/// task, writes what the handler queues, then reads the next request (keep-alive) or closes.
/// Every wait is a poll on the socket and the connection's wake-up pipe, with a deadline.
struct HTTPConnection {
    /// How reading a request ended.
    enum Read {
        /// A whole request, to answer.
        case request(HTTPRequest)
        /// Close without an answer (the client left, idled out, or the server is stopping).
        case close
        /// Answer this error, then close.
        case fail(HTTPParseError)
    }

    /// The client socket (non-blocking).
    let fd: Int32
    /// The connection's number in the server's count.
    let id: Int
    /// Wakes the thread when the handler queued bytes or the server stops.
    let wakeup: Wakeup
    /// The server's handler, limits and shutdown state.
    let core: HTTPServerCore
    /// When the connection was accepted: the first head's timeout runs from here.
    let opened: ContinuousClock.Instant
    /// The bytes read and not yet answered.
    var parser: HTTPRequestParser
    /// When the last answer was written (nil before the first request).
    var idleSince: ContinuousClock.Instant?

    /// A connection on the socket `fd` accepted at `opened`, counted in as `id`.
    init(fd: Int32, id: Int, wakeup: Wakeup, core: HTTPServerCore, opened: ContinuousClock.Instant) {
        self.fd = fd
        self.opened = opened
        self.id = id
        self.wakeup = wakeup
        self.core = core
        parser = HTTPRequestParser(limits: core.limits)
    }

    /// Serves requests until the connection ends, then closes it and counts it out.
    mutating func run() {
        var lingering = false
        loop: while true {
            switch readRequest() {
            case .close:
                break loop
            case .fail(let error):
                _ = Socket.sendAll(fd, core.errorResponse(error.status, error.message), until: .now + .seconds(5))
                lingering = true
                break loop
            case .request(let request):
                guard serve(request) else { break loop }
                idleSince = .now
                core.rest(id)
            }
        }
        if lingering { Socket.lingeringClose(fd, wakeup: wakeup.fd, until: .now + .seconds(2)) } else { close(fd) }
        wakeup.close()
        core.unregister(id)
    }

    /// Reads the next request, answering `100 Continue` when asked, within the head, body and idle
    /// timeouts (the idle and head ones shortened while the server is nearly full). Ends when the
    /// server closes the connection to make room, which it does only while no byte of a request came.
    mutating func readRequest() -> Read {
        let limits = core.limits
        var headStart: ContinuousClock.Instant? = idleSince == nil ? opened : nil
        var bodyStart: ContinuousClock.Instant?
        var began = false
        while true {
            if parser.isIdle {
                guard core.isOpen(id) else { return .close }
            } else if !began {
                guard core.begin(id) else { return .close }
                began = true
            }
            switch parser.next() {
            case .request(let request): return .request(request)
            case .failure(let error): return .fail(error)
            case .expectsContinue:
                guard Socket.sendAll(fd, HTTPResponseHead.continueLine, until: .now + limits.headerTimeout) else { return .close }
                continue
            case .needMore: break
            }
            if core.isStopping { return .close }
            let now = ContinuousClock.now
            if !parser.isIdle, headStart == nil { headStart = now }
            if parser.isReadingBody, bodyStart == nil { bodyStart = now }
            let headTimeout = core.idleLimit(limits.headerTimeout)
            let deadline = if let bodyStart { bodyStart + limits.bodyTimeout }
                else if parser.isIdle, let idleSince { idleSince + core.idleLimit(limits.idleTimeout) }
                else { (headStart ?? now) + headTimeout }
            if now >= deadline {
                if parser.isIdle { return .close }
                let part = bodyStart == nil ? "line and headers" : "body"
                let timeout = bodyStart == nil ? headTimeout : limits.bodyTimeout
                return .fail(HTTPParseError(status: 408, "The request \(part) did not arrive within \(timeout); send the whole request at once."))
            }
            let events = Socket.wait([(fd, Int16(POLLIN) | Socket.pollReadHangUp), (wakeup.fd, Int16(POLLIN))], until: deadline)
            if events[1] != 0 { wakeup.drain() }
            guard events[0] != 0 else { continue }
            var failed = false
            guard let bytes = Socket.read(fd, count: 64 * 1024, failed: &failed) else { continue }
            if bytes.isEmpty { return .close }
            parser.feed(bytes)
        }
    }

    /// Answers one request with the handler; true when the connection stays open for the next one.
    func serve(_ request: HTTPRequest) -> Bool {
        let core = core
        let responder = HTTPResponder(request: request, port: core.port, limits: core.limits, headers: core.headers,
                                      errorBody: core.errorBody, wakeup: wakeup, stopping: { core.isStopping })
        responder.start(core.handler)
        guard pump(responder) else {
            waitForHandler(responder)
            return false
        }
        return !responder.snapshot.closeAfter && !core.isStopping
    }

    /// Writes the responder's bytes until its answer is complete and sent (true), or the client is
    /// gone, too slow, or outlived the shutdown's grace (false). Watches for hang-ups throughout.
    func pump(_ responder: HTTPResponder) -> Bool {
        while true {
            let state = responder.snapshot
            if !state.connected { return false }
            if state.handlerReturned, state.phase != .complete {
                responder.completeAfterHandler()
                continue
            }
            if state.handlerReturned, state.phase == .complete, !state.pending { return true }
            var blocked = false
            if state.pending {
                let written = responder.write(to: fd)
                guard written.ok else {
                    responder.disconnect()
                    continue
                }
                blocked = written.blocked
            }
            let now = ContinuousClock.now
            responder.keepAliveIfDue(now: now)
            let stop = core.stopDeadline
            if let stop, now >= stop {
                responder.disconnect()
                continue
            }
            if state.pending, !blocked { continue }
            let deadline = [responder.snapshot.keepAliveDue, stop].compactMap { $0 }.min()
            let watch = Socket.hangUp | (blocked ? Int16(POLLOUT) : 0)
            let events = Socket.wait([(fd, watch), (wakeup.fd, Int16(POLLIN))], until: deadline)
            if events[1] != 0 { wakeup.drain() }
            if events[0] & Socket.hangUp != 0 { responder.disconnect() }
        }
    }

    /// Waits until a cancelled handler has returned, so that its task never outlives the connection.
    func waitForHandler(_ responder: HTTPResponder) {
        while !responder.snapshot.handlerReturned {
            _ = Socket.wait([(wakeup.fd, Int16(POLLIN))], until: .now + .seconds(1))
            wakeup.drain()
        }
    }
}
