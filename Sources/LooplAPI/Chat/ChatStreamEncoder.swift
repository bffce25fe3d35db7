import Loopl

/// Turns a model's events into the `chat.completion.chunk` objects of a streamed answer, keeping
/// OpenAI's invariants (which ``ChatStreamInvariants`` checks).
///
/// Every chunk has the same `id`, `created` and `model`. The first chunk's delta alone has
/// `role: "assistant"`. Text is `delta.content`, thinking `delta.reasoning_content`. A tool call
/// is two chunks, each with one `tool_calls` entry keyed by `index` (0, 1, ...): the first with its
/// `id`, `type` and whole `function.name` and empty `arguments`, the second with the argument text
/// (as ``OpenAIFields/arguments(_:)`` renders it). ``finish(_:)`` sends the one chunk whose
/// `finish_reason` is not null and, with `includeUsage`, a last chunk with `choices: []` and the
/// usage (other chunks then have `usage: null`).
package struct ChatStreamEncoder: Sendable {
    /// The completion's id, `chatcmpl-...`.
    package let id: String
    /// The model name every chunk reports.
    package let model: String
    /// When the completion was created, in Unix seconds.
    package let created: Int
    /// True when the stream ends with a usage chunk.
    package let includeUsage: Bool
    /// False when at most one tool call is sent.
    package let parallelToolCalls: Bool
    private var sentRole = false
    private var calls = 0
    private var finished = false
    private var madeCalls = false
    private var metrics: Metrics?

    /// An encoder for one stream; `id` and `created` are fresh unless given (tests fix them).
    package init(id: String = OpenAIFields.makeId(), model: String, created: Int = OpenAIFields.now(), includeUsage: Bool,
                 parallelToolCalls: Bool = true) {
        self.id = id
        self.model = model
        self.created = created
        self.includeUsage = includeUsage
        self.parallelToolCalls = parallelToolCalls
    }

    /// True once the one call that `parallelToolCalls: false` allows has been sent: the caller may
    /// stop the generation, as further calls would be dropped.
    package var isSatisfied: Bool { !parallelToolCalls && calls > 0 }

    /// The opening chunk (`role: "assistant"`, empty content), for a caller that wants to send
    /// something before the model's first token; empty when a chunk was already sent.
    package mutating func start() -> [JSONValue] {
        guard !sentRole, !finished else { return [] }
        return [chunk(["content": ""])]
    }

    /// The chunks for one event: none for metrics (kept for ``finish(_:)``), empty text, a call
    /// beyond the one allowed, or anything after the end.
    package mutating func chunks(for event: ModelEvent) -> [JSONValue] {
        guard !finished else { return [] }
        switch event {
        case .text(let piece):
            return piece.isEmpty ? [] : [chunk(["content": .string(piece)])]
        case .reasoning(let piece):
            return piece.isEmpty ? [] : [chunk(["reasoning_content": .string(piece)])]
        case .toolCall(let call):
            guard !isSatisfied else { return [] }
            let index = JSONValue.integer(calls)
            calls += 1
            madeCalls = true
            let head: JSONValue = ["index": index, "id": .string(call.id), "type": "function",
                                   "function": ["name": .string(call.name), "arguments": ""]]
            let tail: JSONValue = ["index": index, "function": ["arguments": .string(OpenAIFields.arguments(call))]]
            return [chunk(["tool_calls": [head]]), chunk(["tool_calls": [tail]])]
        case .metrics(let latest):
            metrics = latest
            return []
        }
    }

    /// The end of the stream: the chunk with the `finish_reason` (from `metrics`, else the latest
    /// metrics seen, and llama-server's `timings` when the turn ended) and, with `includeUsage`, the usage chunk. Empty when called again. The
    /// caller sends ``SSE/done`` after them.
    package mutating func finish(_ metrics: Metrics?) -> [JSONValue] {
        guard !finished else { return [] }
        let last = metrics ?? self.metrics
        var end = chunk([:], finishReason: OpenAIFields.finishReason(last?.stopReason, madeCalls: madeCalls))
        if case .object(var object) = end, let timings = OpenAIFields.timings(last) {
            object["timings"] = timings
            end = .object(object)
        }
        var chunks = [end]
        finished = true
        if includeUsage {
            chunks.append(envelope(choices: [], usage: OpenAIFields.usage(last)))
        }
        return chunks
    }

    /// A chunk with one choice holding `delta` (with the role when it is the first chunk).
    private mutating func chunk(_ delta: JSONObject, finishReason: String? = nil) -> JSONValue {
        var delta = delta
        if !sentRole {
            var withRole: JSONObject = ["role": "assistant"]
            for (key, value) in delta { withRole[key] = value }
            delta = withRole
            sentRole = true
        }
        let choice: JSONValue = ["index": 0, "delta": .object(delta), "logprobs": .null,
                                 "finish_reason": finishReason.map(JSONValue.string) ?? .null]
        return envelope(choices: [choice], usage: .null)
    }

    private func envelope(choices: [JSONValue], usage: JSONValue) -> JSONValue {
        var chunk: JSONObject = ["id": .string(id), "object": "chat.completion.chunk", "created": .integer(created),
                                 "model": .string(model), "choices": .array(choices)]
        if includeUsage { chunk["usage"] = usage }
        return .object(chunk)
    }
}
