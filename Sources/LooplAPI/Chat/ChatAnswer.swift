import Loopl

/// A whole (not streamed) chat completion answer, gathered from a model's events.
///
/// Feed every ``ModelEvent`` to ``add(_:)``, then send ``json``: `{id, object: "chat.completion",
/// created, model, choices: [{index: 0, message, finish_reason, logprobs: null}], usage}`, whose
/// message has `role`, `content` (null when empty and there are calls), `reasoning_content` (only
/// after thinking) and `tool_calls` (only with calls).
package struct ChatAnswer: Sendable {
    /// The completion's id, `chatcmpl-...`.
    package let id: String
    /// The model name the answer reports.
    package let model: String
    /// When the completion was created, in Unix seconds.
    package let created: Int
    /// The turn gathered so far.
    package private(set) var turn: TurnTally

    /// An empty answer; `id` and `created` are fresh unless given (tests fix them).
    package init(id: String = OpenAIFields.makeId(), model: String, created: Int = OpenAIFields.now(), parallelToolCalls: Bool = true) {
        self.id = id
        self.model = model
        self.created = created
        turn = TurnTally(parallelToolCalls: parallelToolCalls)
    }

    /// True once the one call that parallel calls being off allows has come: the caller may stop
    /// the generation, as further calls would be dropped.
    package var isSatisfied: Bool { turn.isSatisfied }

    /// Takes one event of the model's stream.
    package mutating func add(_ event: ModelEvent) { turn.add(event) }

    /// The assistant message: `role`, `content`, and `reasoning_content` and `tool_calls` when there are any.
    package var message: JSONValue {
        var message: JSONObject = ["role": "assistant",
                                   "content": turn.text.isEmpty && !turn.toolCalls.isEmpty ? .null : .string(turn.text)]
        if !turn.reasoning.isEmpty { message["reasoning_content"] = .string(turn.reasoning) }
        if !turn.toolCalls.isEmpty { message["tool_calls"] = .array(turn.toolCalls.map(OpenAIFields.toolCall)) }
        return .object(message)
    }

    /// The OpenAI `finish_reason` of the answer.
    package var finishReason: String {
        OpenAIFields.finishReason(turn.metrics?.stopReason, madeCalls: !turn.toolCalls.isEmpty)
    }

    /// The answer's JSON, with llama-server's `timings` once the turn ended.
    package var json: JSONValue {
        var answer: JSONObject = [
            "id": .string(id), "object": "chat.completion", "created": .integer(created), "model": .string(model),
            "choices": [["index": 0, "message": message, "finish_reason": .string(finishReason), "logprobs": .null]],
            "usage": OpenAIFields.usage(turn.metrics)]
        answer["timings"] = OpenAIFields.timings(turn.metrics)
        return .object(answer)
    }

    /// ``json`` as compact UTF-8 JSON, the body of the answer.
    package var body: [UInt8] { Array(json.jsonText().utf8) }
}
