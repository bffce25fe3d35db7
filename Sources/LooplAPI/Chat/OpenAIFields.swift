import Foundation
import Loopl

/// The pieces that the streamed and the whole chat completion answers share: ids, times, the
/// finish reason, the usage, and the JSON of a tool call.
package enum OpenAIFields {
    /// A fresh completion id: `prefix` (`chatcmpl-`) and 24 random letters and digits.
    package static func makeId(prefix: String = "chatcmpl-") -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rng = SystemRandomNumberGenerator()
        return prefix + String((0..<24).map { _ in alphabet[Int(rng.next(upperBound: UInt(alphabet.count)))] })
    }

    /// The current time in Unix seconds, for `created`.
    package static func now() -> Int { Int(Date().timeIntervalSince1970) }

    /// OpenAI's `finish_reason`: "tool_calls" when calls were made or the model stopped on one,
    /// "length" when the token limit was reached, else "stop" (an end of turn, a stop string, a
    /// cancellation, or no reason known).
    package static func finishReason(_ reason: Metrics.StopReason?, madeCalls: Bool) -> String {
        if madeCalls { return "tool_calls" }
        switch reason {
        case .maxTokens?: return "length"
        case .toolCall?: return "tool_calls"
        case .endTurn?, .stop?, .cancelled?, nil: return "stop"
        }
    }

    /// The `usage` object: `prompt_tokens`, `completion_tokens`, `total_tokens`,
    /// `prompt_tokens_details.cached_tokens`, and `completion_tokens_details.reasoning_tokens`
    /// when the backend counted thinking. Zeros when no metrics came.
    package static func usage(_ metrics: Metrics?) -> JSONValue {
        let metrics = metrics ?? Metrics()
        var usage: JSONObject = [
            "prompt_tokens": .integer(metrics.promptTokens),
            "completion_tokens": .integer(metrics.generatedTokens),
            "total_tokens": .integer(metrics.promptTokens + metrics.generatedTokens),
            "prompt_tokens_details": ["cached_tokens": .integer(metrics.cachedPromptTokens)],
        ]
        if metrics.reasoningTokens > 0 {
            usage["completion_tokens_details"] = ["reasoning_tokens": .integer(metrics.reasoningTokens)]
        }
        return .object(usage)
    }

    /// llama-server's `timings` object from the backend's own measures: `cache_n` and `prompt_n`
    /// (prompt tokens reused and evaluated), `prompt_ms` (the engine's time to its first token),
    /// `predicted_n` and `predicted_per_second`. Nil before the turn's last metrics.
    package static func timings(_ metrics: Metrics?) -> JSONValue? {
        guard let metrics, metrics.finished else { return nil }
        var timings: JSONObject = [
            "cache_n": .integer(metrics.cachedPromptTokens),
            "prompt_n": .integer(metrics.promptTokens - metrics.cachedPromptTokens),
            "predicted_n": .integer(metrics.generatedTokens),
        ]
        if let ms = metrics.ttftMs ?? metrics.promptEvalMs { timings["prompt_ms"] = .double(ms) }
        if let speed = metrics.tokensPerSecond { timings["predicted_per_second"] = .double(speed) }
        return .object(timings)
    }

    /// A call's arguments as the wire carries them: compact JSON text of the object. The streamed
    /// and the whole answer both use this, so their texts are equal.
    package static func arguments(_ call: ToolCall) -> String {
        JSONValue.object(call.arguments).jsonText()
    }

    /// A call in a whole answer: `{"id", "type": "function", "function": {"name", "arguments"}}`.
    package static func toolCall(_ call: ToolCall) -> JSONValue {
        ["id": .string(call.id), "type": "function",
         "function": ["name": .string(call.name), "arguments": .string(arguments(call))]]
    }
}
