import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Loopl
import LooplHTTP

/// Where a server listens and the key it wants.
struct ServerEndpoint: Sendable {
    let baseURL: URL
    let apiKey: String?

    /// What a user should check when a server's answer is not what an OpenAI-compatible server sends.
    static let advice = "Check that the URL points at an OpenAI-compatible server."

    /// A request to `path` (which starts with "/"), with the key when there is one.
    func request(_ path: String, method: String = "GET", body: JSONValue? = nil, timeout: TimeInterval) -> URLRequest {
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        var request = URLRequest(url: URL(string: base + path) ?? baseURL, timeoutInterval: timeout)
        request.httpMethod = method
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.jsonText().utf8)
        }
        return request
    }

    /// Sends a small request and returns the status and the body parsed as JSON (null when it is not JSON).
    func fetch(_ path: String, method: String = "GET", body: JSONValue? = nil,
               timeout: TimeInterval = 5) async throws -> (status: Int, json: JSONValue, text: String) {
        let request = self.request(path, method: method, body: body, timeout: timeout)
        let response: (status: Int, body: [UInt8])
        do {
            response = try await HTTPResponseStream.open(request).collect(advice: ServerEndpoint.advice)
        } catch {
            throw ServerFailure.connection(error, url: request.url ?? baseURL)
        }
        let text = String(decoding: response.body, as: UTF8.self)
        return (response.status, (try? JSONValue(parsing: text)) ?? .null, text)
    }
}

/// Turns what a server or the network said into ``LooplError``s.
enum ServerFailure {
    /// An HTTP answer with an error status.
    static func http(status: Int, body: Data, url: URL) -> LooplError {
        let text = String(decoding: body, as: UTF8.self)
        let json = (try? JSONValue(parsing: text)) ?? .null
        let error = json["error"]?.objectValue.map(JSONValue.object) ?? json
        let message = error["message"]?.stringValue ?? json["error"]?.stringValue
            ?? (text.isEmpty ? "no message" : String(text.prefix(300)))
        let type = error["type"]?.stringValue ?? ""
        if type == "exceed_context_size_error" || (status == 400 && message.lowercased().contains("context length")) {
            if let prompt = error["n_prompt_tokens"]?.intValue, let context = error["n_ctx"]?.intValue {
                return LooplError(.contextOverflow, "The prompt has \(prompt) tokens, but the server's context holds \(context). Shorten the conversation or start the server with a larger context.")
            }
            return LooplError(.contextOverflow, "The prompt does not fit in the server's context (\(message)). Shorten the conversation or use a larger context.")
        }
        switch status {
        case 401, 403:
            return LooplError(.unauthorized, "The server at \(url.host ?? url.redacted) refused the request (HTTP \(status): \(message)). Check the API key.")
        case 404:
            return LooplError(.httpError, "The server at \(url.redacted) answered HTTP 404 (\(message)). Check that the URL points at an OpenAI-compatible server, without /v1.")
        case 400, 422:
            return LooplError(.invalidRequest, "The server rejected the request (HTTP \(status): \(message)).")
        default:
            return LooplError(.httpError, "The server answered HTTP \(status): \(message).")
        }
    }

    /// A transport failure: nothing listens, the connection broke, or it timed out.
    static func connection(_ error: any Error, url: URL) -> LooplError {
        if let error = error as? LooplError { return error }
        let target = url.host.map { "\($0)\(url.port.map { ":\($0)" } ?? "")" } ?? url.redacted
        switch error as? HTTPTransportError {
        case .cancelled?:
            return LooplError(.cancelled, "The request was cancelled.")
        case .timedOut?:
            return LooplError(.connectionFailed, "The server at \(target) stopped answering (timed out). Check that it is running and not overloaded.")
        case .connectionLost?:
            return LooplError(.connectionFailed, "The server at \(target) closed the connection in the middle of an answer.")
        case .malformed(let what)?:
            return LooplError(.protocolViolation, "The server at \(target) does not speak HTTP/1.1: \(what). Check the URL.")
        case .cannotConnect(let reason)?:
            return LooplError(.connectionFailed, "Cannot reach a server at \(target): \(reason). Check the URL and that the server is running.")
        case .violation(let message)?:
            return LooplError(.protocolViolation, message)
        case nil:
            return LooplError(.connectionFailed, "Cannot reach a server at \(target): \(error.localizedDescription). Check the URL and that the server is running.")
        }
    }
}
