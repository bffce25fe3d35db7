import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import LooplHTTP

/// The 2024-11-05 HTTP+SSE transport, the fallback for servers that refuse Streamable HTTP: a GET
/// stream whose `endpoint` event names where to POST, and which carries the responses.
extension MCPHTTPConnection {
    /// Opens the event stream and waits for its `endpoint` event.
    func openLegacy(within timeout: Duration) async throws {
        let named = AsyncThrowingStream<URL, any Error>.makeStream()
        let base = endpoint.url
        let request = self.request("GET", base, nil, idle: Self.streamIdle)
        let answer = try await open(request, within: timeout, about: nil) { answer in
            defer { named.continuation.finish() }
            do {
                try await self.events(answer) { event in
                    switch event.name {
                    case "endpoint":
                        guard let target = URL(string: event.data, relativeTo: base)?.absoluteURL,
                              target.scheme == base.scheme, target.host == base.host, target.port == base.port else {
                            self.mailbox.finish(.violation("its endpoint event names \(URL.redacting(event.data)), which is not on the server's own origin"))
                            return
                        }
                        self.state.withLock { $0.legacyTarget = target }
                        named.continuation.yield(target)
                    case "message":
                        self.route(event.data)
                    default:
                        break
                    }
                }
            } catch {
                self.mailbox.finish(.exited(nil))
                throw error
            }
            self.mailbox.finish(.exited(nil))
        }
        guard (200..<300).contains(answer.status) else {
            if answer.status == 401 || answer.status == 403 { throw unauthorized(answer, "its event stream") }
            throw LooplError(.protocolViolation, "\(who) speaks neither Streamable HTTP nor HTTP+SSE: initialize was refused, and GET answered HTTP \(answer.status)\(Self.excerpt(answer.text)). Check its url.")
        }
        let waiter = Task {
            for try await _ in named.stream { return true }
            return false
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            waiter.cancel()
        }
        defer { timer.cancel() }
        guard (try? await waiter.value) == true else {
            if case .violation(let problem)? = mailbox.end { throw LooplError(.protocolViolation, "\(who) broke the HTTP+SSE transport: \(problem).") }
            throw LooplError(.timedOut, "\(who) opened an HTTP+SSE stream but sent no endpoint event within \(timeout) (its timeoutSeconds).")
        }
    }

    func postLegacy(_ message: RPCMessage, to target: URL, within timeout: Duration) async throws {
        let answer = try await open(request("POST", target, message), within: timeout, about: message) { answer in
            var answer = answer
            _ = try await answer.collect(limit: Self.errorLimit)
        }
        guard (200..<300).contains(answer.status) else {
            let method = Self.method(of: message)
            if answer.status == 404 {
                state.withLock { $0.sessionLost = true }
                mailbox.finish(.violation("it no longer knows the session (HTTP 404 for its message endpoint)"))
                throw LooplError(.connectionFailed, "\(who) ended the session during \(method) (HTTP 404); Loopl starts a new one.")
            }
            if answer.status == 401 || answer.status == 403 { throw unauthorized(answer, method) }
            throw LooplError(.httpError, "\(who) answered \(method) with HTTP \(answer.status)\(Self.excerpt(answer.text)).")
        }
    }
}
