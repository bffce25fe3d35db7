import Loopl

/// The `text_completion` objects of `/v1/completions`: the whole answer, and the chunks of a
/// streamed one. Every chunk has the same `id`, `created` and `model`; the last choice chunk has
/// the `finish_reason`, and with `includeUsage` a last chunk with `choices: []` has the usage.
package struct CompletionAnswer: Sendable {
    /// The completion's id, `cmpl-...`.
    package let id: String
    /// The model name it reports.
    package let model: String
    /// When it was created, in Unix seconds.
    package let created: Int
    /// The text so far.
    package private(set) var text = ""
    /// The latest metrics.
    package private(set) var metrics: Metrics?

    package init(model: String, id: String = OpenAIFields.makeId(prefix: "cmpl-"), created: Int = OpenAIFields.now()) {
        self.id = id
        self.model = model
        self.created = created
    }

    /// Takes one event; returns the chunk a stream sends for it, if any.
    package mutating func add(_ event: ModelEvent, includeUsage: Bool = false) -> JSONValue? {
        switch event {
        case .text(let piece) where !piece.isEmpty:
            text += piece
            return object(choice(piece, finishReason: nil), usage: includeUsage ? .null : nil)
        case .metrics(let latest):
            metrics = latest
            return nil
        default:
            return nil
        }
    }

    /// OpenAI's `finish_reason`: "length" at the token limit, else "stop".
    package var finishReason: String { OpenAIFields.finishReason(metrics?.stopReason, madeCalls: false) }

    /// The whole answer.
    package var json: JSONValue { object(choice(text, finishReason: finishReason), usage: OpenAIFields.usage(metrics)) }

    /// The last chunks of a stream: the one with the `finish_reason`, then the usage when asked.
    package func finish(includeUsage: Bool) -> [JSONValue] {
        var chunks = [object(choice("", finishReason: finishReason), usage: includeUsage ? .null : nil)]
        if includeUsage { chunks.append(envelope(choices: [], usage: OpenAIFields.usage(metrics))) }
        return chunks
    }

    private func choice(_ text: String, finishReason: String?) -> JSONValue {
        ["text": .string(text), "index": 0, "logprobs": .null, "finish_reason": finishReason.map(JSONValue.string) ?? .null]
    }

    private func object(_ choice: JSONValue, usage: JSONValue?) -> JSONValue {
        envelope(choices: [choice], usage: usage)
    }

    private func envelope(choices: [JSONValue], usage: JSONValue?) -> JSONValue {
        var object: JSONObject = ["id": .string(id), "object": "text_completion", "created": .integer(created),
                                  "model": .string(model), "choices": .array(choices)]
        if let usage { object["usage"] = usage }
        return .object(object)
    }
}
