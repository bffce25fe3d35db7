import LooplHTTP
import Synchronization

/// The head of a streamed answer, sent once: by the first chunk, or by the keep-alive timer while
/// the prompt is still evaluated. Until then an error can still be answered with its own status.
final class StreamGate: Sendable {
    private enum State { case waiting, streaming, ended }

    private let responder: HTTPResponder
    private let keepAlive: Duration
    private let state = Mutex(State.waiting)

    init(_ responder: HTTPResponder, keepAlive: Duration) {
        self.responder = responder
        self.keepAlive = keepAlive
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

    /// Ends the answer with `error`: its own status while nothing was sent, else an error event.
    func fail(_ error: APIError) {
        state.withLock { state in
            switch state {
            case .waiting: responder.respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.body)
            case .streaming:
                responder.send(error.streamEvent)
                responder.send(SSE.done)
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
            responder.send(SSE.done)
            responder.finish()
            state = .ended
        }
    }

    private func openLocked(_ state: inout State) {
        guard state == .waiting else { return }
        responder.startStream(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
                              keepAlive: (keepAlive, SSE.ping))
        state = .streaming
    }
}
