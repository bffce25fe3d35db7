import LooplHTTP
import Synchronization

/// The head of a streamed answer, sent once: by the first chunk, or by the keep-alive timer while
/// the prompt is still evaluated. Until then an error can still be answered with its own status.
final class StreamGate: Sendable {
    private enum State { case waiting, streaming, ended }

    private let responder: HTTPResponder
    private let keepAlive: Duration
    private let headers: [(String, String)]
    private let done: [UInt8]?
    private let state = Mutex(State.waiting)

    /// A gate on `responder`; the head carries `headers` besides the event-stream ones, and the
    /// stream ends with `done` (OpenAI chat's `data: [DONE]`; nil for none).
    init(_ responder: HTTPResponder, keepAlive: Duration, headers: [(String, String)] = [], done: [UInt8]? = SSE.done) {
        self.responder = responder
        self.keepAlive = keepAlive
        self.headers = headers
        self.done = done
    }

    /// Sends `bytes`, opening the stream first if needed; false once the client is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard state != .ended else { return false }
            openLocked(&state)
            return responder.send(bytes)
        }
    }

    /// Opens the stream with a keep-alive comment, unless it is open or answered already.
    func ping() {
        state.withLock { state in
            guard state == .waiting else { return }
            openLocked(&state)
            responder.send(SSE.ping)
        }
    }

    /// Ends the answer with `error`: its own status while nothing was sent, else an error event
    /// (`event`, else the error's own).
    func fail(_ error: APIError, event: [UInt8]? = nil) {
        state.withLock { state in
            switch state {
            case .waiting: responder.respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.body)
            case .streaming:
                responder.send(event ?? error.streamEvent)
                if let done { responder.send(done) }
                responder.finish()
            case .ended: break
            }
            state = .ended
        }
    }

    /// Ends the stream after its last chunk.
    func finish() {
        state.withLock { state in
            guard state != .ended else { return }
            openLocked(&state)
            if let done { responder.send(done) }
            responder.finish()
            state = .ended
        }
    }

    private func openLocked(_ state: inout State) {
        guard state == .waiting else { return }
        responder.startStream(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")] + headers,
                              keepAlive: (keepAlive, SSE.ping))
        state = .streaming
    }
}
