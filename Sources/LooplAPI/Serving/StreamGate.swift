import LooplHTTP
import Synchronization

/// The head of a streamed answer, sent once: by the first chunk, or by the keep-alive timer while
/// the prompt is still evaluated. Until then an error can still be answered with its own status.
final class StreamGate: Sendable {
    private enum State { case waiting, streaming, ended }

    private let responder: HTTPResponder
    private let keepAlive: Duration
    private let framing: StreamFraming
    private let headers: [(String, String)]
    private let state = Mutex(State.waiting)

    /// A gate for one answer in `framing` (OpenAI's unless given), whose head carries `headers` too.
    init(_ responder: HTTPResponder, keepAlive: Duration, framing: StreamFraming = .openAI, headers: [(String, String)] = []) {
        self.responder = responder
        self.keepAlive = keepAlive
        self.framing = framing
        self.headers = headers
    }

    /// Sends `bytes`, opening the stream first if needed; false once the client is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard state != .ended else { return false }
            openLocked(&state)
            return responder.send(bytes)
        }
    }

    /// Sends each of `pieces` in order; throws `CancellationError` once the client is gone.
    func send(all pieces: [[UInt8]]) throws {
        for piece in pieces where !send(piece) { throw CancellationError() }
    }

    /// Starts the timer that pings (opening the stream) when nothing was sent within the
    /// keep-alive interval; the caller cancels it when the answer ends.
    func armKeepAlive() -> Task<Void, any Error> {
        let interval = keepAlive
        return Task {
            try await Task.sleep(for: interval)
            self.ping()
        }
    }

    /// Opens the stream with a keep-alive comment, unless it is open or answered already.
    func ping() {
        state.withLock { state in
            guard state == .waiting else { return }
            openLocked(&state)
            responder.send(framing.ping)
        }
    }

    /// Ends the answer with `error`: its own status while nothing was sent, else an error event
    /// (`event`, else the framing's).
    func fail(_ error: APIError, event: [UInt8]? = nil) {
        state.withLock { state in
            switch state {
            case .waiting:
                responder.respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: framing.errorBody(error))
            case .streaming:
                responder.send(event ?? framing.errorEvent(error))
                if !framing.done.isEmpty { responder.send(framing.done) }
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
            if !framing.done.isEmpty { responder.send(framing.done) }
            responder.finish()
            state = .ended
        }
    }

    private func openLocked(_ state: inout State) {
        guard state == .waiting else { return }
        responder.startStream(status: 200, headers: [("Content-Type", framing.contentType), ("Cache-Control", "no-cache")] + headers,
                              keepAlive: (keepAlive, framing.ping))
        state = .streaming
    }
}

/// The bytes of one dialect's stream: its keep-alive ping, what ends it (empty: nothing), an
/// error before the head (a body) and after it (an event), and its content type.
struct StreamFraming: Sendable {
    /// Sent while the prompt is evaluated, and on an idle stream.
    let ping: [UInt8]
    /// Sent after the last event; empty for none.
    let done: [UInt8]
    /// The body of an error answered with its own status.
    let errorBody: @Sendable (APIError) -> [UInt8]
    /// The event of an error after the stream began.
    let errorEvent: @Sendable (APIError) -> [UInt8]
    /// The stream's `Content-Type`.
    var contentType = "text/event-stream"

    /// OpenAI's: a `: ping` comment, `data: [DONE]`, and the `{"error": ...}` object.
    static let openAI = StreamFraming(ping: SSE.ping, done: SSE.done, errorBody: { $0.body }, errorEvent: { $0.streamEvent })
    /// OpenAI Responses': chat's, without `data: [DONE]` (the endpoint sends its own failure event).
    static let responses = StreamFraming(ping: SSE.ping, done: [], errorBody: { $0.body }, errorEvent: { $0.streamEvent })
}
