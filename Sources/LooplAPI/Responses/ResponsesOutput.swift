import Loopl

/// The `output` of a response, built from a model's events, with the stream events that
/// announce it.
///
/// Feed every ``ModelEvent`` to ``add(_:)`` and call ``finish()`` once: each returns the stream
/// events (without `sequence_number`) that the change makes, so that a streamed and a whole
/// response come from the same items. Thinking becomes a `reasoning` item with one summary
/// part, visible text a `message` item with one `output_text` part, and each call a
/// `function_call` item; a new kind of event closes the item before it.
package struct ResponsesOutput: Sendable {
    /// One output item.
    package enum Item: Sendable, Hashable {
        /// Thinking: a `reasoning` item (`rs_…`) with its summary text.
        case reasoning(id: String, text: String)
        /// Visible text: a `message` item (`msg_…`) with one `output_text` part.
        case message(id: String, text: String)
        /// A tool call: a `function_call` item (`fc_…`).
        case call(id: String, ToolCall)
    }

    /// The items so far, in order.
    package private(set) var items: [Item] = []
    /// The latest metrics.
    package private(set) var metrics: Metrics?
    /// False when at most one tool call is kept.
    package let parallelToolCalls: Bool
    /// True while the last item still takes text or thinking.
    private var open = false

    /// An empty output.
    package init(parallelToolCalls: Bool = true) {
        self.parallelToolCalls = parallelToolCalls
    }

    /// True once the one call that `parallelToolCalls: false` allows has come.
    package var isSatisfied: Bool {
        !parallelToolCalls && items.contains { if case .call = $0 { true } else { false } }
    }

    /// The calls made, in order.
    package var toolCalls: [ToolCall] {
        items.compactMap { if case .call(_, let call) = $0 { call } else { nil } }
    }

    /// Takes one event; returns the stream events it makes.
    package mutating func add(_ event: ModelEvent) -> [JSONObject] {
        switch event {
        case .metrics(let latest):
            metrics = latest
            return []
        case .reasoning(let piece):
            guard !piece.isEmpty else { return [] }
            var events: [JSONObject] = []
            if !open || !isLast(reasoning: true) { events += close() + openItem(.reasoning(id: OpenAIFields.makeId(prefix: "rs_"), text: "")) }
            guard case .reasoning(let id, let text) = items[items.count - 1] else { return events }
            items[items.count - 1] = .reasoning(id: id, text: text + piece)
            return events + [["type": "response.reasoning_summary_text.delta", "item_id": .string(id),
                              "output_index": .integer(items.count - 1), "summary_index": 0, "delta": .string(piece)]]
        case .text(let piece):
            guard !piece.isEmpty else { return [] }
            var events: [JSONObject] = []
            if !open || !isLast(reasoning: false) { events += close() + openItem(.message(id: OpenAIFields.makeId(prefix: "msg_"), text: "")) }
            guard case .message(let id, let text) = items[items.count - 1] else { return events }
            items[items.count - 1] = .message(id: id, text: text + piece)
            return events + [["type": "response.output_text.delta", "item_id": .string(id), "output_index": .integer(items.count - 1),
                              "content_index": 0, "delta": .string(piece), "logprobs": []]]
        case .toolCall(let call):
            guard !isSatisfied else { return [] }
            return close() + callEvents(call)
        }
    }

    /// Closes the last item; when the model said nothing at all, adds an empty message first.
    package mutating func finish() -> [JSONObject] {
        guard !items.isEmpty else { return openItem(.message(id: OpenAIFields.makeId(prefix: "msg_"), text: "")) + close() }
        return close()
    }

    private func isLast(reasoning: Bool) -> Bool {
        switch items.last {
        case .reasoning?: reasoning
        case .message?: !reasoning
        default: false
        }
    }

    /// Appends an empty reasoning or message item and announces it and its part.
    private mutating func openItem(_ item: Item) -> [JSONObject] {
        items.append(item)
        open = true
        let index = JSONValue.integer(items.count - 1)
        let added: JSONObject = ["type": "response.output_item.added", "output_index": index, "item": Self.json(item, done: false)]
        switch item {
        case .reasoning(let id, _):
            return [added, ["type": "response.reasoning_summary_part.added", "item_id": .string(id), "output_index": index,
                            "summary_index": 0, "part": ["type": "summary_text", "text": ""]]]
        case .message(let id, _):
            return [added, ["type": "response.content_part.added", "item_id": .string(id), "output_index": index,
                            "content_index": 0, "part": Self.textPart("")]]
        case .call:
            return [added]
        }
    }

    /// The events that end the open item; none when no item is open.
    private mutating func close() -> [JSONObject] {
        guard open, let item = items.last else { return [] }
        open = false
        let index = JSONValue.integer(items.count - 1)
        let done: JSONObject = ["type": "response.output_item.done", "output_index": index, "item": Self.json(item, done: true, cut: isCut)]
        switch item {
        case .reasoning(let id, let text):
            return [["type": "response.reasoning_summary_text.done", "item_id": .string(id), "output_index": index,
                     "summary_index": 0, "text": .string(text)],
                    ["type": "response.reasoning_summary_part.done", "item_id": .string(id), "output_index": index,
                     "summary_index": 0, "part": ["type": "summary_text", "text": .string(text)]], done]
        case .message(let id, let text):
            return [["type": "response.output_text.done", "item_id": .string(id), "output_index": index,
                     "content_index": 0, "text": .string(text), "logprobs": []],
                    ["type": "response.content_part.done", "item_id": .string(id), "output_index": index,
                     "content_index": 0, "part": Self.textPart(text)], done]
        case .call:
            return [done]
        }
    }

    /// A whole call: its item added, its arguments in one delta, and its item done.
    private mutating func callEvents(_ call: ToolCall) -> [JSONObject] {
        let item = Item.call(id: OpenAIFields.makeId(prefix: "fc_"), call)
        items.append(item)
        let index = JSONValue.integer(items.count - 1)
        guard case .call(let id, _) = item else { return [] }
        let arguments = JSONValue.string(OpenAIFields.arguments(call))
        return [["type": "response.output_item.added", "output_index": index, "item": Self.json(item, done: false)],
                ["type": "response.function_call_arguments.delta", "item_id": .string(id), "output_index": index, "delta": arguments],
                ["type": "response.function_call_arguments.done", "item_id": .string(id), "output_index": index,
                 "name": .string(call.name), "arguments": arguments],
                ["type": "response.output_item.done", "output_index": index, "item": Self.json(item, done: true)]]
    }

    /// The items as the response's `output`.
    package var json: JSONValue {
        .array(items.enumerated().map { Self.json($1, done: true, cut: isCut && $0 == items.count - 1) })
    }

    /// True when the token limit cut the turn: its last item is then `incomplete`.
    package var isCut: Bool { metrics?.stopReason == .maxTokens }

    /// An item's JSON: whole when `done`, else as announced (no text, no arguments, in progress);
    /// `incomplete` when `cut`.
    package static func json(_ item: Item, done: Bool, cut: Bool = false) -> JSONValue {
        let status: JSONValue = cut ? "incomplete" : done ? "completed" : "in_progress"
        switch item {
        case .reasoning(let id, let text):
            return ["type": "reasoning", "id": .string(id),
                    "summary": done ? [["type": "summary_text", "text": .string(text)]] : []]
        case .message(let id, let text):
            return ["type": "message", "id": .string(id), "role": "assistant", "status": status,
                    "content": done ? [textPart(text)] : []]
        case .call(let id, let call):
            return ["type": "function_call", "id": .string(id), "call_id": .string(call.id), "name": .string(call.name),
                    "arguments": done ? .string(OpenAIFields.arguments(call)) : "", "status": status]
        }
    }

    private static func textPart(_ text: String) -> JSONValue {
        ["type": "output_text", "text": .string(text), "annotations": []]
    }

    /// The output as the assistant turn a continuation sends back: its text, calls and thinking.
    package var message: Message {
        var text = "", reasoning = ""
        for item in items {
            switch item {
            case .reasoning(_, let piece): reasoning += piece
            case .message(_, let piece): text += piece
            case .call: break
            }
        }
        return .assistant(text: text, toolCalls: toolCalls, reasoning: reasoning.isEmpty ? nil : reasoning)
    }
}
