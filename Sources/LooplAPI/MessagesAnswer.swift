import Loopl

/// A whole (not streamed) Messages answer, gathered from a model's events.
///
/// Feed every ``ModelEvent`` to ``add(_:)``, then send ``json``: `{id, type: "message", role:
/// "assistant", model, content, stop_reason, stop_sequence, usage}`, whose content is a
/// `thinking` block (with ``MessagesReply/signature``) when the model thought, a `text` block
/// when it wrote text, and one `tool_use` block per call.
package struct MessagesAnswer: Sendable {
    /// The message's id, `msg_…`.
    package let id: String
    /// The model name the answer reports.
    package let model: String
    /// False when at most one tool call is kept.
    package let parallelToolCalls: Bool
    /// The request's stop strings, for `stop_sequence`.
    package let stops: [String]
    /// The visible text so far.
    package private(set) var text = ""
    /// The thinking so far.
    package private(set) var reasoning = ""
    /// The tool calls kept so far.
    package private(set) var toolCalls: [ToolCall] = []
    /// The latest metrics.
    package private(set) var metrics: Metrics?

    /// An empty answer; `id` is fresh unless given (tests fix it).
    package init(id: String = MessagesReply.makeId(), model: String, parallelToolCalls: Bool = true, stops: [String] = []) {
        self.id = id
        self.model = model
        self.parallelToolCalls = parallelToolCalls
        self.stops = stops
    }

    /// True once the one call that `disable_parallel_tool_use` allows has come: the caller may
    /// stop the generation, as further calls would be dropped.
    package var isSatisfied: Bool { !parallelToolCalls && !toolCalls.isEmpty }

    /// Takes one event of the model's stream.
    package mutating func add(_ event: ModelEvent) {
        switch event {
        case .text(let piece): text += piece
        case .reasoning(let piece): reasoning += piece
        case .toolCall(let call): if !isSatisfied { toolCalls.append(call) }
        case .metrics(let latest): metrics = latest
        }
    }

    /// The content blocks: thinking, text, then the calls.
    package var content: [JSONValue] {
        var blocks: [JSONValue] = []
        if !reasoning.isEmpty {
            blocks.append(["type": "thinking", "thinking": .string(reasoning), "signature": .string(MessagesReply.signature)])
        }
        if !text.isEmpty { blocks.append(["type": "text", "text": .string(text)]) }
        blocks += toolCalls.map { MessagesReply.toolUse($0, input: $0.arguments) }
        return blocks
    }

    /// The answer's JSON.
    package var json: JSONValue {
        let reason = metrics?.stopReason
        let madeCalls = !toolCalls.isEmpty
        return MessagesReply.message(
            id: id, model: model, content: content,
            stopReason: .string(MessagesReply.stopReason(reason, madeCalls: madeCalls)),
            stopSequence: MessagesReply.stopSequence(reason, madeCalls: madeCalls, stops: stops),
            usage: MessagesReply.usage(metrics))
    }
}
