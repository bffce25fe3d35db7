import Loopl

/// Turns a model's events into the named events of a streamed Messages answer, keeping
/// Anthropic's order.
///
/// The first event is `message_start` (the message with empty content, null stop fields and the
/// usage known so far). Each block is `content_block_start` (its `index`, 0, 1, ..., and the empty
/// block), its `content_block_delta`s, and `content_block_stop`: thinking is `thinking_delta`s
/// and one `signature_delta` before the stop, text `text_delta`s, and a call the empty `input`
/// followed by `input_json_delta`s whose `partial_json` pieces join into the call's arguments.
/// ``finish(_:)`` closes the open block and sends `message_delta` (`stop_reason`,
/// `stop_sequence`, the usage) and `message_stop`.
package struct MessagesStreamEncoder: Sendable {
    /// One named event: `event: NAME` and its data, whose `type` is the name too.
    package struct Event: Sendable, Hashable {
        /// The event's name, e.g. `content_block_delta`.
        package let name: String
        /// The event's data.
        package let data: JSONValue

        /// The event as server-sent bytes.
        package var bytes: [UInt8] { AnthropicSSE.event(name, data) }
    }

    private enum Block { case text, reasoning }

    /// The message's id, `msg_…`.
    package let id: String
    /// The model name the message reports.
    package let model: String
    /// False when at most one tool call is sent.
    package let parallelToolCalls: Bool
    /// The request's stop strings, for `stop_sequence`.
    package let stops: [String]
    private var started = false
    private var finished = false
    private var open: Block?
    private var blocks = 0
    private var calls = 0
    private var metrics: Metrics?

    /// An encoder for one stream; `id` is fresh unless given (tests fix it).
    package init(id: String = MessagesFields.makeId(), model: String, parallelToolCalls: Bool = true, stops: [String] = []) {
        self.id = id
        self.model = model
        self.parallelToolCalls = parallelToolCalls
        self.stops = stops
    }

    /// True once the one call that `disable_parallel_tool_use` allows has been sent: the caller
    /// may stop the generation, as further calls would be dropped.
    package var isSatisfied: Bool { !parallelToolCalls && calls > 0 }

    /// The events for one model event: none for metrics (kept for the usage), empty text, a call
    /// beyond the one allowed, or anything after the end.
    package mutating func events(for event: ModelEvent) -> [Event] {
        guard !finished else { return [] }
        switch event {
        case .metrics(let latest):
            metrics = latest
            return []
        case .text(let piece):
            guard !piece.isEmpty else { return [] }
            return enter(.text) + [delta(["type": "text_delta", "text": .string(piece)])]
        case .reasoning(let piece):
            guard !piece.isEmpty else { return [] }
            return enter(.reasoning) + [delta(["type": "thinking_delta", "thinking": .string(piece)])]
        case .toolCall(let call):
            guard !isSatisfied else { return [] }
            calls += 1
            var events = opening() + close()
            events.append(named("content_block_start", ["index": .integer(blocks),
                                                        "content_block": MessagesFields.toolUse(call, input: [:])]))
            for piece in Self.pieces(OpenAIFields.arguments(call)) {
                events.append(delta(["type": "input_json_delta", "partial_json": .string(piece)]))
            }
            events.append(stop())
            return events
        }
    }

    /// The end of the stream: the open block's stop, `message_delta` with the stop reason (from
    /// `metrics`, else the latest metrics seen) and usage, and `message_stop`. Empty when called again.
    package mutating func finish(_ metrics: Metrics?) -> [Event] {
        guard !finished else { return [] }
        if let metrics { self.metrics = metrics }
        var events = opening() + close()
        let reason = self.metrics?.stopReason
        events.append(named("message_delta", [
            "delta": ["stop_reason": .string(MessagesFields.stopReason(reason, madeCalls: calls > 0)),
                      "stop_sequence": MessagesFields.stopSequence(reason, madeCalls: calls > 0, stops: stops)],
            "usage": .object(MessagesFields.usage(self.metrics))]))
        events.append(named("message_stop", [:]))
        finished = true
        return events
    }

    /// `message_start`, when it has not been sent.
    private mutating func opening() -> [Event] {
        guard !started else { return [] }
        started = true
        var usage = MessagesFields.usage(metrics)
        usage["output_tokens"] = 0
        return [named("message_start", ["message": MessagesFields.message(id: id, model: model, content: [], stopReason: .null,
                                                                         stopSequence: .null, usage: usage)])]
    }

    /// The events that make `kind` the open block: the start, after closing another one.
    private mutating func enter(_ kind: Block) -> [Event] {
        var events = opening()
        guard open != kind else { return events }
        events += close()
        let block: JSONValue = kind == .text ? ["type": "text", "text": ""] : ["type": "thinking", "thinking": "", "signature": ""]
        events.append(named("content_block_start", ["index": .integer(blocks), "content_block": block]))
        open = kind
        return events
    }

    /// The open text or thinking block's end (a thinking block gets its signature first).
    private mutating func close() -> [Event] {
        guard let kind = open else { return [] }
        open = nil
        let signature = kind == .reasoning ? [delta(["type": "signature_delta", "signature": .string(MessagesFields.signature)])] : []
        return signature + [stop()]
    }

    private func delta(_ delta: JSONValue) -> Event {
        named("content_block_delta", ["index": .integer(blocks), "delta": delta])
    }

    private mutating func stop() -> Event {
        defer { blocks += 1 }
        return named("content_block_stop", ["index": .integer(blocks)])
    }

    private func named(_ name: String, _ fields: JSONObject) -> Event {
        var data: JSONObject = ["type": .string(name)]
        for (key, value) in fields { data[key] = value }
        return Event(name: name, data: .object(data))
    }

    /// The argument text in two pieces (one when it is a single character), so that a client
    /// joins `partial_json` as it must for a model's streamed arguments.
    static func pieces(_ text: String) -> [String] {
        guard text.count > 1 else { return [text] }
        let middle = text.index(text.startIndex, offsetBy: text.count / 2)
        return [String(text[..<middle]), String(text[middle...])]
    }
}
