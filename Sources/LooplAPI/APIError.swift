import Loopl
import LooplHTTP

/// An error answer of the OpenAI-compatible API: the HTTP status, OpenAI's error `type` and
/// `code`, a sentence a client can act on, and the request field at fault, when there is one.
package struct APIError: Error, Sendable, Hashable {
    /// The HTTP status code.
    package var status: Int
    /// OpenAI's error type: `invalid_request_error`, `authentication_error`, `rate_limit_error`
    /// or `server_error`.
    package var type: String
    /// A stable identifier for the kind of failure, e.g. `model_not_found`.
    package var code: String
    /// What went wrong and what to do about it.
    package var message: String
    /// The path of the request field at fault, e.g. `messages[2].content`; nil when none is.
    package var param: String?
    /// Seconds after which a client may try again (sent as `Retry-After`); nil for no advice.
    package var retryAfter: Int?
    /// The methods an endpoint takes (sent as `Allow` with a 405); nil otherwise.
    package var allow: String?

    /// An error with every part given.
    package init(status: Int, type: String, code: String, message: String, param: String? = nil,
                 retryAfter: Int? = nil, allow: String? = nil) {
        self.status = status
        self.type = type
        self.code = code
        self.message = message
        self.param = param
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// The error object: `{"error": {"message", "type", "code", "param"}}`, `param` null when absent.
    package var json: JSONValue {
        ["error": ["message": .string(message), "type": .string(type), "code": .string(code),
                   "param": param.map(JSONValue.string) ?? .null]]
    }

    /// ``json`` as compact UTF-8 JSON, the body of the error answer.
    package var body: [UInt8] { Array(json.jsonText().utf8) }

    /// The headers the answer needs besides those of its JSON body: `Retry-After` when there is
    /// advice, `Allow` for a wrong method.
    package var headers: [(String, String)] {
        var headers: [(String, String)] = []
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        if let allow { headers.append(("Allow", allow)) }
        return headers
    }

    /// The error as a server-sent event, for a stream that fails after it began:
    /// `data: {"error":{...}}` and a blank line.
    package var streamEvent: [UInt8] { SSE.data(json) }
}

extension APIError {
    /// 400: a field of the request is missing, of the wrong type or out of range; `param` names it.
    package static func invalidRequest(_ message: String, param: String?) -> APIError {
        APIError(status: 400, type: "invalid_request_error", code: "invalid_request", message: message, param: param)
    }

    /// 400: the body is not JSON (or not UTF-8); `message` says where it breaks.
    package static func invalidJSON(_ message: String) -> APIError {
        APIError(status: 400, type: "invalid_request_error", code: "invalid_json", message: message)
    }

    /// 401: the request has no API key, or the wrong one.
    package static var unauthorized: APIError {
        APIError(status: 401, type: "authentication_error", code: "invalid_api_key",
                 message: "Missing or wrong API key: send it as `Authorization: Bearer KEY` or as `x-api-key: KEY`.")
    }

    /// 404: no served model is called `id`; the message lists the ids that are.
    package static func modelNotFound(_ id: String, available: [String]) -> APIError {
        let list = available.isEmpty ? "no model is served" : "use one of: " + available.joined(separator: ", ")
        return APIError(status: 404, type: "invalid_request_error", code: "model_not_found",
                        message: "The model '\(id)' does not exist here; \(list).", param: "model")
    }

    /// 404: no endpoint at `path`.
    package static func notFound(_ path: String) -> APIError {
        APIError(status: 404, type: "invalid_request_error", code: "unknown_url",
                 message: "Unknown request URL \(path): the endpoints are /v1/chat/completions, /v1/completions, /v1/responses, /v1/messages, /v1/embeddings, /v1/models and /metrics.")
    }

    /// 405: the endpoint does not take `method`; `allowed` lists the methods it takes (the `Allow` header).
    package static func methodNotAllowed(_ method: HTTPMethod, allowed: [String]) -> APIError {
        APIError(status: 405, type: "invalid_request_error", code: "method_not_allowed",
                 message: "This endpoint does not take \(method) requests; use \(allowed.joined(separator: " or ")).",
                 allow: allowed.joined(separator: ", "))
    }

    /// 413: the body is longer than `limit` bytes.
    package static func tooLarge(limit: Int) -> APIError {
        APIError(status: 413, type: "invalid_request_error", code: "request_too_large",
                 message: "The request body is larger than the server's limit of \(limit) bytes; send a shorter conversation.")
    }

    /// 429: the model's queue is full; try again after `retryAfter` seconds (the `Retry-After` header).
    package static func busy(retryAfter: Int) -> APIError {
        APIError(status: 429, type: "rate_limit_error", code: "busy",
                 message: "The model is serving as many requests as its queue holds; try again in \(retryAfter) s.",
                 retryAfter: retryAfter)
    }

    /// 409: the model cannot be unloaded now; `message` says why (requests in flight, or a load under way).
    package static func conflict(_ message: String) -> APIError {
        APIError(status: 409, type: "invalid_request_error", code: "model_busy", message: message)
    }

    /// 503: the model cannot serve now (its engine failed to start, stopped, or is unreachable).
    package static func unavailable(_ message: String) -> APIError {
        APIError(status: 503, type: "server_error", code: "model_unavailable", message: message)
    }

    /// 500: the server failed; `message` says how.
    package static func internalError(_ message: String) -> APIError {
        APIError(status: 500, type: "server_error", code: "internal_error", message: message)
    }
}

extension APIError {
    /// Seconds a client is told to wait when a model is busy.
    package static let busyRetryAfter = 1

    /// The answer for a ``LooplError``, keeping its message: a context overflow is 400
    /// `context_length_exceeded`; an invalid request, invalid JSON or a template error 400; a busy
    /// model 429; an engine that is missing, failed, unreachable, silent, misconfigured or closed
    /// 503 `model_unavailable`; anything else (a cancellation too) 500 `server_error`, with the
    /// Loopl code (e.g. `generation_failed`) as its `code`.
    package init(_ error: LooplError) {
        switch error.code {
        case .contextOverflow:
            self.init(status: 400, type: "invalid_request_error", code: "context_length_exceeded",
                      message: error.message, param: "messages")
        case .invalidRequest:
            self = .invalidRequest(error.message, param: nil)
        case .invalidJSON:
            self = .invalidJSON(error.message)
        case .templateError:
            self.init(status: 400, type: "invalid_request_error", code: "template_error", message: error.message)
        case .busy, .agentBusy:
            self = .busy(retryAfter: APIError.busyRetryAfter)
            message = error.message
        case .processFailed, .connectionFailed, .timedOut, .modelNotFound, .invalidModel, .invalidConfiguration, .closed:
            self = .unavailable(error.message)
        default:
            self.init(status: 500, type: "server_error", code: error.code.rawValue, message: error.message)
        }
    }
}
