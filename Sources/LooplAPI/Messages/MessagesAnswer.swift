import Loopl

/// A whole (not streamed) Messages answer, gathered from a model's events.
///
/// Feed every ``ModelEvent`` to ``add(_:)``, then send ``json``: `{id, type: "message", role:
/// "assistant", model, content, stop_reason, stop_sequence, usage}`, whose content is a
/// `thinking` block (with ``MessagesFields/signature``) when the model thought, a `text` block
/// when it wrote text, and one `tool_use` block per call.
package struct MessagesAnswer: Sendable {
    /// The message's id, `msg_…`.
    package let id: String
    /// The model name the answer reports.
    package let model: String
    /// The request's stop strings, for `stop_sequence`.
    package let stops: [String]
    /// The turn gathered so far.
    package private(set) var turn: TurnTally

    /// An empty answer; `id` is fresh unless given (tests fix it).
    package init(id: String = MessagesFields.makeId(), model: String, parallelToolCalls: Bool = true, stops: [String] = []) {
        self.id = id
        self.model = model
        turn = TurnTally(parallelToolCalls: parallelToolCalls)
        self.stops = stops
    }

    /// True once the one call that parallel calls being off allows has come: the caller may stop
    /// the generation, as further calls would be dropped.
    package var isSatisfied: Bool { turn.isSatisfied }

    /// Takes one event of the model's stream.
    package mutating func add(_ event: ModelEvent) { turn.add(event) }

    /// The content blocks: thinking, text, then the calls.
    package var content: [JSONValue] {
        var blocks: [JSONValue] = []
        if !turn.reasoning.isEmpty {
            blocks.append(["type": "thinking", "thinking": .string(turn.reasoning), "signature": .string(MessagesFields.signature)])
        }
        if !turn.text.isEmpty { blocks.append(["type": "text", "text": .string(turn.text)]) }
        blocks += turn.toolCalls.map { MessagesFields.toolUse($0, input: $0.arguments) }
        return blocks
    }

    /// The answer's JSON.
    package var json: JSONValue {
        let reason = turn.metrics?.stopReason
        let madeCalls = !turn.toolCalls.isEmpty
        return MessagesFields.message(
            id: id, model: model, content: content,
            stopReason: .string(MessagesFields.stopReason(reason, madeCalls: madeCalls)),
            stopSequence: MessagesFields.stopSequence(reason, madeCalls: madeCalls, stops: stops),
            usage: MessagesFields.usage(turn.metrics))
    }
}
