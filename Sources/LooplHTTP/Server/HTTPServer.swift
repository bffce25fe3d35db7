import Foundation
import Glibc

/// Loopl's own HTTP/1.1 server: keep-alive, `Content-Length` request bodies, whole or chunked
/// (streamed) responses, bounded heads, bodies and outboxes, timeouts against slow clients, and a
/// graceful shutdown. An accept thread hands each connection to a thread of its own once its first
/// byte comes (``ParkedConnections``), closing the one idle longest when full; each request
/// runs the handler in a task that only queues bytes, never blocking on the socket. It serves
/// until `shutdown`; dropping the server does not stop it.
package final class HTTPServer: Sendable {
    /// Answers one request through its responder; runs in a task per request, cancelled when the client leaves.
    package typealias Handler = @Sendable (HTTPRequest, HTTPResponder) async -> Void
    /// The content type and body of the server's own error answers, from the status and a sentence.
    package typealias ErrorBody = @Sendable (_ status: Int, _ message: String) -> (contentType: String, body: [UInt8])

    /// The address it listens on, as given.
    package let host: String
    /// The bound port (the one picked when asked for port 0).
    package let port: Int
    /// What the server's threads share.
    let core: HTTPServerCore
    /// Wakes the accept thread to see the shutdown.
    let acceptWakeup: Wakeup

    private init(host: String, port: Int, core: HTTPServerCore, acceptWakeup: Wakeup) {
        self.host = host
        self.port = port
        self.core = core
        self.acceptWakeup = acceptWakeup
    }

    /// Binds and listens on `host:port` (SO_REUSEADDR; port 0 picks a free port) and starts serving
    /// with `handler`, after calling `listening` with the bound port (so that what it prints comes
    /// before any answer). The server's own error answers (400, 408, 413, 500, 503, ...) take their
    /// body from `errorBody`. Every answer, the server's own included, carries `headers`.
    package static func listen(host: String, port: Int, limits: HTTPLimits = .init(),
                               errorBody: @escaping ErrorBody = HTTPServer.plainErrorBody,
                               headers: [(String, String)] = [],
                               listening: (Int) -> Void = { _ in },
                               handler: @escaping Handler) throws(HTTPServerError) -> HTTPServer {
        let (fd, bound) = try HTTPListener.open(host: host, port: port)
        guard let wakeup = Wakeup() else {
            close(fd)
            throw .cannotBind(host: host, port: port, reason: "the process is out of file descriptors")
        }
        let core = HTTPServerCore(port: bound, limits: limits, headers: headers, handler: handler, errorBody: errorBody)
        listening(bound)
        Thread.start(named: HTTPServer.acceptThreadName) { HTTPServer.accept(fd, wakeup: wakeup, core: core) }
        return HTTPServer(host: host, port: bound, core: core, acceptWakeup: wakeup)
    }

    /// The name of the thread that accepts connections, as /proc and `top -H` show it.
    static let acceptThreadName = "http accept"
    /// The name of each connection's thread.
    static let connectionThreadName = "http serve"

    /// A text/plain error body: the message and a newline.
    package static let plainErrorBody: ErrorBody = { _, message in
        ("text/plain; charset=utf-8", Array((message + "\n").utf8))
    }

    /// The number of client connections open.
    package var connectionCount: Int { core.connectionCount }

    /// Stops accepting; closes idle keep-alive connections at once; lets requests in flight finish
    /// within `grace`, then cancels their handler tasks and closes their sockets; returns when every
    /// connection thread has ended. Later calls wait the same way.
    package func shutdown(grace: Duration) async {
        for wakeup in core.stop(deadline: .now + grace) { wakeup.signal() }
        acceptWakeup.signal()
        await core.waitUntilStopped()
    }

    /// The accept thread: takes connections until the server stops, then closes the listening
    /// socket. A connection whose first byte is not there yet waits parked on this thread
    /// (``ParkedConnections``) until it comes.
    static func accept(_ listener: Int32, wakeup: Wakeup, core: HTTPServerCore) {
        var parked = ParkedConnections()
        while !core.isStopping {
            let waiting = parked.ordered
            let limit = core.idleLimit(core.limits.headerTimeout)
            let polled = [(listener, Int16(POLLIN)), (wakeup.fd, Int16(POLLIN))] + waiting.map { ($0.entry.fd, Int16(POLLIN) | Socket.pollReadHangUp) }
            let events = Socket.wait(polled, until: parked.nextDeadline(limit: limit))
            if events[1] != 0 { wakeup.drain() }
            let now = ContinuousClock.now
            for (index, (id, entry)) in waiting.enumerated() {
                if events[index + 2] != 0 {
                    if let entry = parked.take(id) { start(entry.fd, id: id, opened: entry.opened, core: core) }
                } else if now >= entry.opened + limit, parked.close(id) {
                    core.unregister(id)
                }
            }
            guard events[0] != 0 else { continue }
            // What is queued, up to a batch, so that parked connections are looked at between batches.
            for _ in 0..<64 {
                let fd = Glibc.accept(listener, nil, nil)
                if fd < 0 {
                    // Out of descriptors: wait for connections to end rather than spin.
                    if errno == EMFILE || errno == ENFILE { _ = Socket.wait([], until: .now + .milliseconds(100)) }
                    break
                }
                admit(fd, parked: &parked, core: core)
            }
        }
        for (id, _) in parked.ordered where parked.close(id) { core.unregister(id) }
        close(listener)
        wakeup.close()
        core.acceptDidEnd()
    }

    /// Counts `fd` in: a thread for it when its first byte is there, else parked (closing the
    /// connection idle longest when the server is full); or answers 503 and closes it when every
    /// connection has a request in flight.
    static func admit(_ fd: Int32, parked: inout ParkedConnections, core: HTTPServerCore) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        guard Socket.prepare(fd) else {
            close(fd)
            return
        }
        let ready = Socket.hasBytes(fd)
        guard let (id, victim) = core.register(busy: ready) else {
            let message = "The server has \(core.limits.maxConnections) requests in flight, its limit; retry later."
            _ = Socket.sendAll(fd, core.errorResponse(503, message), until: .now + .milliseconds(100))
            Glibc.shutdown(fd, Int32(SHUT_WR))
            var failed = false
            _ = Socket.read(fd, count: 64 * 1024, failed: &failed)
            close(fd)
            return
        }
        if let victim { _ = parked.close(victim) }
        if ready { start(fd, id: id, opened: .now, core: core) } else { parked.park(id, fd: fd, opened: .now) }
    }

    /// Starts the thread of connection `id` on `fd`, accepted at `opened`.
    static func start(_ fd: Int32, id: Int, opened: ContinuousClock.Instant, core: HTTPServerCore) {
        guard let wakeup = Wakeup() else {
            close(fd)
            core.unregister(id)
            return
        }
        guard core.attach(id, wakeup) else {
            wakeup.close()
            close(fd)
            return
        }
        Thread.start(named: HTTPServer.connectionThreadName) {
            var connection = HTTPConnection(fd: fd, id: id, wakeup: wakeup, core: core, opened: opened)
            connection.run()
        }
    }
}
