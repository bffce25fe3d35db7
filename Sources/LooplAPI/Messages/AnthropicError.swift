import Loopl

extension APIError {
    /// Anthropic's error `type` for this error's status: `invalid_request_error` (400 and the other
    /// 4xx), `authentication_error` (401), `permission_error` (403), `not_found_error` (404),
    /// `request_too_large` (413), `rate_limit_error` (429), `overloaded_error` (503) and
    /// `api_error` (500 and the other 5xx).
    package var anthropicType: String {
        switch status {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 404: "not_found_error"
        case 413: "request_too_large"
        case 429: "rate_limit_error"
        case 503, 529: "overloaded_error"
        case 500...: "api_error"
        default: "invalid_request_error"
        }
    }

    /// The error in Anthropic's shape: `{"type": "error", "error": {"type", "message"}}`.
    package var anthropicJSON: JSONValue {
        ["type": "error", "error": ["type": .string(anthropicType), "message": .string(message)]]
    }

    /// ``anthropicJSON`` as compact UTF-8 JSON, the body of a Messages error answer.
    package var anthropicBody: [UInt8] { Array(anthropicJSON.jsonText().utf8) }

    /// The error as the named event that ends a Messages stream which already began:
    /// `event: error` and ``anthropicJSON``.
    package var anthropicStreamEvent: [UInt8] { AnthropicSSE.event("error", anthropicJSON) }
}

/// Anthropic's server-sent events: each names its type in an `event:` line.
package enum AnthropicSSE {
    /// `event: NAME`, `data: <compact JSON>` and a blank line.
    package static func event(_ name: String, _ json: JSONValue) -> [UInt8] {
        Array("event: \(name)\ndata: \(json.jsonText())\n\n".utf8)
    }

    /// The event that keeps a Messages stream open while the prompt is evaluated.
    package static let ping: [UInt8] = event("ping", ["type": "ping"])

    /// How a Messages stream opens, keeps alive and fails: named ping and error events, no `[DONE]`.
    static let framing = StreamFraming(ping: ping, done: [], errorBody: { $0.anthropicBody },
                                       errorEvent: { $0.anthropicStreamEvent })
}
