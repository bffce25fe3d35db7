import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import LooplHTTP
import Synchronization

/// One MCP server over HTTP: Streamable HTTP (the stateless 2026-07-28, and the handshake
/// revisions 2025-03-26 to 2025-11-25), and the 2024-11-05 HTTP+SSE transport as a fallback.
///
/// Streamable HTTP POSTs every message to the one endpoint; the answer is a JSON body or an
/// event stream that may carry the server's notifications and requests before the response. The
/// `Mcp-Session-Id` the server gives is sent on every later request, `MCP-Protocol-Version`
/// after the handshake; a GET stream takes the server's own notifications, and DELETE ends the
/// session. When `initialize` is answered 400, 404 or 405 (and the entry has no `type`), the
/// endpoint is taken for an HTTP+SSE one: a GET stream, whose `endpoint` event names where to
/// POST, carries the responses. An entry of `"type": "sse"` opens that stream before its first message.
///
/// Bodies are bounded: a JSON answer at 16 MiB, an error's body at 64 KiB (only its start is
/// shown), an event stream's lines and events at ``SSEDecoder/limit``.
final class MCPHTTPConnection: MCPTransport {
    let mailbox = Mailbox()
    let endpoint: MCPHTTPEndpoint
    private let server: String
    private let timeout: Duration
    private let onNotification: @Sendable (String, JSONValue) -> Void

    struct State {
        var session: String?
        var revision: String?
        /// Where to POST, once an HTTP+SSE stream has named it.
        var legacyTarget: URL?
        var sessionLost = false
        var closed = false
        var open: [Int: @Sendable () -> Void] = [:]
        var nextStream = 0
    }
    let state = Mutex(State())

    /// The largest JSON body read, and the most of an error's body kept.
    static let bodyLimit = 16 * 1024 * 1024
    static let errorLimit = 64 * 1024
    /// How long an idle event stream stays open: servers send keep-alives well within it.
    static let streamIdle: TimeInterval = 24 * 3600

    init(_ endpoint: MCPHTTPEndpoint, server: String, timeout: Duration,
         onNotification: @escaping @Sendable (String, JSONValue) -> Void) {
        self.endpoint = endpoint
        self.server = server
        self.timeout = timeout
        self.onNotification = onNotification
    }

    var isUsable: Bool { mailbox.end == nil && !state.withLock { $0.closed } }
    var sessionLost: Bool { state.withLock { $0.sessionLost } }
    var details: String { "" }
    var who: String { "MCP server '\(server)' at \(endpoint.url.redacted)" }

    func agreed(on revision: String) {
        state.withLock { $0.revision = revision }
    }

    func startFailure(_ error: any Error) async -> any Error { error }

    func failure(_ end: MailboxEnd, during method: String) -> LooplError {
        switch end {
        case .exited:
            LooplError(.connectionFailed, "\(who) closed its event stream during \(method); Loopl connects again on its next call.")
        case .violation(let problem):
            LooplError(.protocolViolation, "\(who) broke the protocol during \(method): \(problem). Loopl connects again on its next call.")
        case .stopped:
            LooplError(.connectionFailed, "The connection to MCP server '\(server)' was closed during \(method).")
        }
    }

    // MARK: Sending

    func send(_ message: RPCMessage, within timeout: Duration) async throws {
        // An entry of "type": "sse" speaks HTTP+SSE from the start: its stream names where to POST.
        if endpoint.kind == .sse, state.withLock({ $0.legacyTarget == nil }) { try await openLegacy(within: timeout) }
        if let target = state.withLock({ $0.legacyTarget }) {
            try await postLegacy(message, to: target, within: timeout)
            return
        }
        let answer = try await open(request("POST", endpoint.url, message), within: timeout, about: message) { answer in
            try await self.read(answer, replyingTo: message)
        }
        let method = Self.method(of: message)
        // The session is the one the answer to initialize gives (others may carry a throwaway id).
        if method == "initialize", (200..<300).contains(answer.status), let session = answer.headers["mcp-session-id"] {
            state.withLock { $0.session = session }
        }
        if (200..<300).contains(answer.status) {
            // Once the session is ready, the optional GET stream takes the server's own notifications.
            if method == "notifications/initialized", state.withLock({ $0.session != nil }) { Task { await self.listen() } }
            return
        }
        if endpoint.kind == .automatic, method == "initialize", [400, 404, 405].contains(answer.status) {
            try await openLegacy(within: timeout)
            guard let target = state.withLock({ $0.legacyTarget }) else { return }
            try await postLegacy(message, to: target, within: timeout)
            return
        }
        try refuse(answer, method: method, message: message)
    }

    /// Turns a status that is not 2xx into an error, or into the request's JSON-RPC error.
    private func refuse(_ answer: Answer, method: String, message: RPCMessage) throws {
        let status = answer.status
        if status == 404, state.withLock({ $0.session != nil }) {
            state.withLock { $0.sessionLost = true }
            mailbox.finish(.violation("it no longer knows the session (HTTP 404 for its Mcp-Session-Id)"))
            throw LooplError(.connectionFailed, "\(who) ended the session during \(method) (HTTP 404); Loopl starts a new one.")
        }
        if status == 401 || status == 403 { throw unauthorized(answer, method) }
        if (400..<500).contains(status), case .request(let id, _, _) = message {
            // An answer to the request: its JSON-RPC error, or one made of the status.
            let rpc = (try? JSONValue(parsing: answer.text))?["error"]
            let error = RPCError(code: rpc?["code"]?.intValue ?? RPCError.invalidRequest,
                                 message: rpc?["message"]?.stringValue ?? "HTTP \(status)\(Self.excerpt(answer.text))",
                                 data: rpc?["data"])
            mailbox.put(.response(id: id, result: .failure(error)))
            return
        }
        throw LooplError(.httpError, "\(who) answered \(method) with HTTP \(status)\(Self.excerpt(answer.text)).")
    }

    func unauthorized(_ answer: Answer, _ what: String) -> LooplError {
        LooplError(.unauthorized, "\(who) refused \(what) with HTTP \(answer.status)\(Self.excerpt(answer.text)). Its entry's headers may need a token, such as \"Authorization\": \"Bearer ${TOKEN}\".")
    }

    /// Reads a 2xx answer to a POST: JSON, an event stream, or nothing (for a notification or a response).
    private func read(_ answer: Body, replyingTo message: RPCMessage) async throws {
        var answer = answer
        let type = answer.headers["content-type"]?.lowercased() ?? ""
        if type.hasPrefix("text/event-stream") {
            try await events(answer) { event in
                if event.name == "message" { self.route(event.data) }
            }
            return
        }
        let body = try await answer.collect(limit: Self.bodyLimit)
        guard case .request = message else { return }
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        if body.allSatisfy(blank.contains) {
            mailbox.finish(.violation("it answered \(Self.method(of: message)) with HTTP \(answer.status) and an empty body"))
            return
        }
        route(String(decoding: body, as: UTF8.self))
    }

    /// Passes on one JSON text the server sent: a message, or a batch of them.
    func route(_ text: String) {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            mailbox.finish(.violation("it sent a body that is not JSON: \(Mailbox.excerpt(text))"))
            return
        }
        for item in value.arrayValue ?? [value] {
            switch RPCMessage.read(item) {
            case .failure(let problem):
                mailbox.finish(.violation("it sent a message that is not JSON-RPC 2.0 (\(problem.reason)): \(Mailbox.excerpt(text))"))
                return
            case .success(.request(let id, let method, _)):
                let answer = RPCMessage.response(id: id, result: reply(toServerRequest: method))
                Task { try? await self.send(answer, within: self.timeout) }
            case .success(.notification(let method, let params)):
                onNotification(method, params)
            case .success(let response):
                guard mailbox.put(response, bytes: text.utf8.count) else {
                    mailbox.finish(.violation("it sent more than \(mailbox.limit / 1024 / 1024) MiB of responses that the host has not read yet"))
                    return
                }
            }
        }
    }

    /// The GET stream of the server's notifications and requests; a server without one answers 405.
    private func listen() async {
        let request = self.request("GET", endpoint.url, nil, idle: Self.streamIdle)
        _ = try? await open(request, within: timeout, about: nil) { answer in
            try await self.events(answer) { event in
                if event.name == "message" { self.route(event.data) }
            }
        }
    }

    // MARK: Shutdown

    func shutdown(wait: Duration) async {
        let (session, legacy, streams) = state.withLock { state in
            state.closed = true
            defer { state.open = [:] }
            return (state.session, state.legacyTarget != nil, Array(state.open.values))
        }
        for cancel in streams { cancel() }
        mailbox.finish(.stopped)
        guard let session, !legacy else { return }
        var request = self.request("DELETE", endpoint.url, nil)
        request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id")
        request.timeoutInterval = 2
        _ = try? await HTTPResponseStream.open(request).collect(limit: Self.errorLimit)
    }

    // MARK: HTTP

    /// The head of an answer, with the start of its body when the status is not 2xx.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var text = ""
    }

    /// A 2xx answer's body, read on by a task of the connection's own.
    struct Body {
        var status: Int
        var headers: HTTPHeaders
        var parts: AsyncThrowingStream<HTTPPart, any Error>.AsyncIterator
        let response: HTTPResponseStream

        /// The whole body; over `limit` bytes it is an error.
        mutating func collect(limit: Int) async throws -> [UInt8] {
            var body: [UInt8] = []
            while let part = try await parts.next() {
                response.credit?.release()
                guard case .body(let bytes) = part else { continue }
                guard body.count + bytes.count <= limit else {
                    response.cancel()
                    throw BodyTooLarge(limit: limit)
                }
                body += bytes
            }
            return body
        }
    }

    struct BodyTooLarge: Error { let limit: Int }

    /// Set once, read from any thread.
    private final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    /// Reads an event stream's events as they come.
    func events(_ body: Body, _ take: (SSEDecoder.Event) -> Void) async throws {
        var body = body
        var decoder = SSEDecoder()
        while let part = try await body.parts.next() {
            body.response.credit?.release()
            guard case .body(let bytes) = part else { continue }
            for event in decoder.events(bytes) { take(event) }
            if let violation = decoder.violation {
                body.response.cancel()
                mailbox.finish(.violation(violation))
                return
            }
            if !isUsable { return body.response.cancel() }
        }
        if let event = decoder.finishEvent() { take(event) }
    }

    /// Sends `request` and returns its head once it comes within `limit`; a 2xx body is handed to
    /// `read` on a task of its own, which the connection's shutdown cancels.
    func open(_ request: URLRequest, within limit: Duration, about message: RPCMessage?,
                      read: @escaping @Sendable (Body) async throws -> Void) async throws -> Answer {
        let response = HTTPResponseStream.open(request)
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.nextStream += 1
            state.open[state.nextStream] = response.cancel
            return state.nextStream
        }
        guard let id else {
            response.cancel()
            throw LooplError(.connectionFailed, "The connection to MCP server '\(server)' is closed.")
        }
        let heads = AsyncThrowingStream<Answer, any Error>.makeStream()
        let expired = Flag()
        let timer = Task {
            try await Task.sleep(for: limit)
            expired.set()
            response.cancel()
        }
        Task {
            defer { self.state.withLock { _ = $0.open.removeValue(forKey: id) } }
            var parts = response.parts.makeAsyncIterator()
            do {
                var head: Answer?
                while head == nil, let part = try await parts.next() {
                    response.credit?.release()
                    if case .status(let status, let headers) = part { head = Answer(status: status, headers: headers) }
                }
                guard var answer = head else { throw HTTPTransportError.connectionLost }
                timer.cancel()
                if !(200..<300).contains(answer.status) {
                    var body = Body(status: answer.status, headers: answer.headers, parts: parts, response: response)
                    let bytes = (try? await body.collect(limit: Self.errorLimit)) ?? []
                    answer.text = String(decoding: bytes, as: UTF8.self)
                    heads.continuation.yield(answer)
                    heads.continuation.finish()
                    return
                }
                heads.continuation.yield(answer)
                heads.continuation.finish()
                try await read(Body(status: answer.status, headers: answer.headers, parts: parts, response: response))
            } catch {
                timer.cancel()
                let failure = self.failure(error, expired: expired.isSet, message: message)
                heads.continuation.finish(throwing: failure)
                if message != nil, !(error is CancellationError), (error as? HTTPTransportError) != .cancelled || expired.isSet {
                    self.mailbox.finish(.violation(failure.message))
                }
            }
        }
        do {
            return try await withTaskCancellationHandler {
                for try await answer in heads.stream { return answer }
                throw LooplError(.connectionFailed, "\(who) closed the connection before answering.")
            } onCancel: {
                response.cancel()
            }
        } catch let error as LooplError where error.code == .cancelled {
            throw CancellationError()
        }
    }

    /// What a failed exchange means for the user.
    private func failure(_ error: any Error, expired: Bool, message: RPCMessage?) -> LooplError {
        let what = message.map(Self.method) ?? "the event stream"
        if expired {
            return LooplError(.timedOut, "\(who) did not answer \(what) within \(timeout) (its timeoutSeconds).")
        }
        if let error = error as? BodyTooLarge {
            return LooplError(.protocolViolation, "\(who) sent a body larger than \(error.limit / 1024 / 1024) MiB answering \(what).")
        }
        let target = endpoint.url.host.map { "\($0)\(endpoint.url.port.map { ":\($0)" } ?? "")" } ?? endpoint.url.redacted
        switch error as? HTTPTransportError {
        case .cannotConnect(let reason)?:
            return LooplError(.connectionFailed, "Cannot reach MCP server '\(server)' at \(target): \(reason). Check its url and that the server is running.")
        case .timedOut?:
            return LooplError(.timedOut, "\(who) stopped answering \(what) (nothing within \(timeout), its timeoutSeconds).")
        case .connectionLost?:
            return LooplError(.connectionFailed, "\(who) closed the connection in the middle of answering \(what).")
        case .malformed(let problem)?:
            return LooplError(.protocolViolation, "\(who) does not speak HTTP/1.1: \(problem). Check its url.")
        case .cancelled?:
            return LooplError(.cancelled, "The request to MCP server '\(server)' was cancelled.")
        case .violation(let message)?:
            return LooplError(.protocolViolation, message)
        case nil:
            return (error as? LooplError) ?? LooplError(.connectionFailed, "\(who) failed during \(what): \(error).")
        }
    }

    /// A request with the entry's headers, the session's, and `message` as its JSON body.
    func request(_ method: String, _ url: URL, _ message: RPCMessage?, idle: TimeInterval? = nil) -> URLRequest {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var request = URLRequest(url: url, timeoutInterval: idle ?? seconds)
        request.httpMethod = method
        for (name, value) in endpoint.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(method == "GET" ? "text/event-stream" : "application/json, text/event-stream", forHTTPHeaderField: "Accept")
        let (session, revision, legacy) = state.withLock { ($0.session, $0.revision, $0.legacyTarget != nil) }
        if !legacy {
            if let session { request.setValue(session, forHTTPHeaderField: "Mcp-Session-Id") }
            if let revision { request.setValue(revision, forHTTPHeaderField: "MCP-Protocol-Version") }
        }
        if let message {
            for (name, value) in Self.mirrored(message) { request.setValue(value, forHTTPHeaderField: name) }
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(message.jsonValue.jsonText().utf8)
        }
        return request
    }

    /// The headers that the stateless revision (2026-07-28) mirrors from a request's body: its
    /// version, its method and, for a call, the name it calls.
    static func mirrored(_ message: RPCMessage) -> [String: String] {
        guard case .request(_, let method, let params) = message,
              let version = params["_meta"]?["io.modelcontextprotocol/protocolVersion"]?.stringValue else { return [:] }
        var headers = ["MCP-Protocol-Version": version, "Mcp-Method": method]
        let named = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"][method]
        if let named, let name = params[named]?.stringValue { headers["Mcp-Name"] = headerValue(name) }
        return headers
    }

    /// `text` as a header value: printable ASCII as it is, anything else in base64 as `=?base64?…?=`.
    static func headerValue(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && text.first != " " && text.last != " "
            && !(text.hasPrefix("=?base64?") && text.hasSuffix("?="))
        return plain ? text : "=?base64?" + Data(text.utf8).base64EncodedString() + "?="
    }

    static func method(of message: RPCMessage) -> String {
        switch message {
        case .request(_, let method, _), .notification(let method, _): method
        case .response: "a response"
        }
    }

    /// ": the body's start", for messages; nothing for an empty body.
    static func excerpt(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "" : ": " + Mailbox.excerpt(trimmed)
    }
}
