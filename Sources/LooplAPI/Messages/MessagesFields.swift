import Loopl

/// The pieces that the streamed and the whole Messages answers share: ids, the stop reason, the
/// usage, and the content blocks.
package enum MessagesFields {
    /// The opaque `signature` of every thinking block Loopl writes; clients send it back and Loopl
    /// ignores it.
    package static let signature = "loopl"

    /// A fresh message id: `msg_` and 24 random letters and digits.
    package static func makeId() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rng = SystemRandomNumberGenerator()
        return "msg_" + String((0..<24).map { _ in alphabet[Int(rng.next(upperBound: UInt(alphabet.count)))] })
    }

    /// A call's id in Anthropic's form: `toolu_…` (a Loopl `call_` prefix becomes `toolu_`).
    package static func toolUseId(_ call: ToolCall) -> String {
        if call.id.hasPrefix("toolu_") { return call.id }
        return "toolu_" + (call.id.hasPrefix("call_") ? String(call.id.dropFirst("call_".count)) : call.id)
    }

    /// `stop_reason`: `tool_use` when calls were made or the model stopped on one, `max_tokens`
    /// at the token limit, `stop_sequence` on a stop string, else `end_turn`.
    package static func stopReason(_ reason: Metrics.StopReason?, madeCalls: Bool) -> String {
        if madeCalls { return "tool_use" }
        switch reason {
        case .maxTokens?: return "max_tokens"
        case .toolCall?: return "tool_use"
        case .stop?: return "stop_sequence"
        case .endTurn?, .cancelled?, nil: return "end_turn"
        }
    }

    /// `stop_sequence`: the stop string when the model stopped on one and the request gave only
    /// one (the backend does not say which of several it met), else null.
    package static func stopSequence(_ reason: Metrics.StopReason?, madeCalls: Bool, stops: [String]) -> JSONValue {
        guard !madeCalls, reason == .stop, stops.count == 1 else { return .null }
        return .string(stops[0])
    }

    /// `usage`: `input_tokens` (the prompt's tokens not read from the cache),
    /// `cache_read_input_tokens` (those read from it), `cache_creation_input_tokens` (0: Loopl
    /// writes no client-visible cache) and `output_tokens`. Zeros when no metrics came.
    package static func usage(_ metrics: Metrics?) -> JSONObject {
        let metrics = metrics ?? Metrics()
        return ["input_tokens": .integer(metrics.promptTokens - metrics.cachedPromptTokens),
                "cache_read_input_tokens": .integer(metrics.cachedPromptTokens),
                "cache_creation_input_tokens": 0,
                "output_tokens": .integer(metrics.generatedTokens)]
    }

    /// A `tool_use` block with the call's whole `input`.
    package static func toolUse(_ call: ToolCall, input: JSONObject) -> JSONValue {
        ["type": "tool_use", "id": .string(toolUseId(call)), "name": .string(call.name), "input": .object(input)]
    }

    /// The `message` object, with `content` and the stop fields given.
    package static func message(id: String, model: String, content: [JSONValue], stopReason: JSONValue,
                                stopSequence: JSONValue, usage: JSONObject) -> JSONValue {
        ["id": .string(id), "type": "message", "role": "assistant", "model": .string(model), "content": .array(content),
         "stop_reason": stopReason, "stop_sequence": stopSequence, "usage": .object(usage)]
    }
}
