import Foundation
import Loopl

/// The objects of one `/api/chat` or `/api/generate` answer, gathered from a model's events.
///
/// A stream sends ``chunk(for:)`` for each event, then ``final(streamed:)`` with `done: true`,
/// `done_reason` (`stop`, or `length` at `num_predict`) and the counters in nanoseconds
/// (`total_duration`, `load_duration`, `prompt_eval_count`, `prompt_eval_duration`,
/// `eval_count`, `eval_duration`); a whole answer is ``final(streamed:)`` alone, holding all the
/// text. Chat objects carry `message` (`role`, `content`, `thinking`, `tool_calls` with each call's
/// `id`, `function.index`, `name` and `arguments` as an object); generate objects carry
/// `response` and `thinking`. `created_at` is the time of each object.
package struct OllamaAnswer: Sendable {
    /// Which endpoint's objects.
    package enum Shape: Sendable { case chat, generate }

    package let shape: Shape
    /// The model as the request named it.
    package let model: String
    /// When the request came.
    let started: ContinuousClock.Instant
    /// How long the backend took to start (or to be found running).
    let load: Duration
    /// The turn gathered so far.
    package private(set) var turn = TurnTally()

    package init(shape: Shape, model: String, started: ContinuousClock.Instant = .now, load: Duration = .zero) {
        self.shape = shape
        self.model = model
        self.started = started
        self.load = load
    }

    /// Takes one event; returns the object a stream sends for it, if any.
    package mutating func chunk(for event: ModelEvent) -> JSONValue? {
        let calls = turn.toolCalls.count
        turn.add(event)
        switch event {
        case .text(let piece) where !piece.isEmpty: return .object(object(content: piece, thinking: "", calls: []))
        case .reasoning(let piece) where !piece.isEmpty: return .object(object(content: "", thinking: piece, calls: []))
        case .toolCall where turn.toolCalls.count > calls:
            return .object(object(content: "", thinking: "", calls: [(calls, turn.toolCalls[calls])]))
        default: return nil
        }
    }

    /// The last object: empty text after a stream, all of it for a whole answer.
    package func final(streamed: Bool) -> JSONValue {
        var last = streamed ? object(content: "", thinking: "", calls: [])
            : object(content: turn.text, thinking: turn.reasoning, calls: Array(turn.toolCalls.enumerated()))
        last["done"] = true
        last["done_reason"] = .string(turn.metrics?.stopReason == .maxTokens ? "length" : "stop")
        for (key, value) in counters() { last[key] = .integer(value) }
        return .object(last)
    }

    /// The answer to a request that only starts the model (`done_reason: "load"`), or that only
    /// unloads it (`keep_alive: 0`: `"unload"`).
    package func loaded(reason: String = "load") -> JSONValue {
        var loaded = object(content: "", thinking: "", calls: [])
        loaded["done"] = true
        loaded["done_reason"] = .string(reason)
        return .object(loaded)
    }

    private func object(content: String, thinking: String, calls: [(offset: Int, element: ToolCall)]) -> JSONObject {
        var object: JSONObject = ["model": .string(model), "created_at": .string(Self.timestamp()), "done": false]
        switch shape {
        case .chat:
            var message: JSONObject = ["role": "assistant", "content": .string(content)]
            if !thinking.isEmpty { message["thinking"] = .string(thinking) }
            if !calls.isEmpty { message["tool_calls"] = .array(calls.map(Self.toolCall)) }
            object["message"] = .object(message)
        case .generate:
            object["response"] = .string(content)
            if !thinking.isEmpty { object["thinking"] = .string(thinking) }
        }
        return object
    }

    /// A call as Ollama writes it: `{"id", "function": {"index", "name", "arguments"}}`.
    static func toolCall(_ indexed: (offset: Int, element: ToolCall)) -> JSONValue {
        let call = indexed.element
        return ["id": .string(call.id),
                "function": ["index": .integer(indexed.offset), "name": .string(call.name), "arguments": .object(call.arguments)]]
    }

    /// The counters of the final object, in nanoseconds and tokens.
    func counters() -> [(String, Int)] {
        let metrics = turn.metrics ?? Metrics()
        let total = Self.nanoseconds(ContinuousClock.now - started)
        let prompt = Int(((metrics.promptEvalMs ?? metrics.ttftMs) ?? 0) * 1e6)
        var eval = max(0, total - Self.nanoseconds(load) - prompt)
        if let speed = metrics.tokensPerSecond, speed > 0 { eval = Int(Double(metrics.generatedTokens) / speed * 1e9) }
        return [("total_duration", total), ("load_duration", Self.nanoseconds(load)), ("prompt_eval_count", metrics.promptTokens),
                ("prompt_eval_duration", prompt), ("eval_count", metrics.generatedTokens), ("eval_duration", eval)]
    }

    static func nanoseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1_000_000_000 + Int(duration.components.attoseconds / 1_000_000_000)
    }

    /// Now as Ollama writes `created_at`: RFC 3339 in UTC with fractional seconds.
    static func timestamp(_ date: Date = Date()) -> String {
        date.ISO8601Format(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
