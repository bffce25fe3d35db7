import Synchronization

/// Where a backend whose engine writes markup streams its raw events: text with thinking tags and
/// tool-call blocks goes in, and its stream's consumer gets visible text, thinking and complete
/// calls only, as the ``Model`` contract asks.
///
/// Make one per request, after the prompt is rendered, in place of the stream's continuation:
///
/// ```swift
/// .generating { continuation in
///     let output = LiftingContinuation(continuation, format: .hermes, tools: tools, prompt: promptText)
///     output.yield(.text(rawDelta))
/// }
/// ```
///
/// Events other than text pass through; before a finished ``ModelEvent/metrics(_:)`` event the
/// text held back (a call missing its closing tag, a marker cut in two) is decided, and a turn
/// that ended with lifted calls reports ``Metrics/StopReason/toolCall``, as a native backend does.
/// A call to a tool that was not offered still comes as a ``ModelEvent/toolCall(_:)``, for the
/// caller to answer.
///
/// A call equal to one the turn already made (the same name and arguments) is the model looping
/// instead of ending its turn: it is dropped with everything after it, and ``repeatedCall`` tells
/// the backend to end the turn there.
public final class LiftingContinuation: Sendable {
    /// Where the lifted events go: the stream's continuation, or a ``ModelEventPipe``.
    private let sink: @Sendable (ModelEvent) -> Void
    /// The parser (nil: nothing to lift), the calls lifted, and whether one came again.
    private let state: Mutex<State>
    /// True when there is nothing to lift: events pass without taking the lock.
    private let passesThrough: Bool

    /// - Parameters:
    ///   - format: the family of markup the engine writes; nil (an engine that makes its own
    ///     calls and thinking events) passes every event through as it is.
    ///   - tools: the tools the prompt offered; calls to others are rejected as ``ToolCallParser`` does.
    ///   - prompt: the rendered prompt, when the backend rendered it: if it ends by opening thinking
    ///     (`<think>`), the model's text starts inside it.
    public convenience init(_ continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation, format: ToolCallFormat?,
                            tools: [ToolSpec], prompt: String? = nil) {
        self.init(continuation, format: format, tools: tools, opened: prompt.flatMap(ReasoningMarkup.opened(byPrompt:)))
    }

    /// `opened`: the thinking the prompt opened, if it did.
    package convenience init(_ continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation, format: ToolCallFormat?,
                             tools: [ToolSpec], opened: ReasoningMarkup?) {
        self.init(sink: { continuation.yield($0) }, format: format, tools: tools, opened: opened)
    }

    /// Lifts into `pipe`.
    package convenience init(_ pipe: ModelEventPipe, format: ToolCallFormat?, tools: [ToolSpec]) {
        self.init(sink: { pipe.yield($0) }, format: format, tools: tools, opened: nil)
    }

    private init(sink: @escaping @Sendable (ModelEvent) -> Void, format: ToolCallFormat?, tools: [ToolSpec],
                 opened: ReasoningMarkup?) {
        self.sink = sink
        passesThrough = format == nil
        guard let format else {
            state = Mutex(State(parser: nil))
            return
        }
        state = Mutex(State(parser: ToolCallParser(format: format, tools: tools, startsInReasoning: false)))
        // The parser reads the opener as the start of the text, so what follows it is thinking.
        if let opened { yield(.text(opened.open)) }
    }

    /// Streams `event`, lifted.
    public func yield(_ event: ModelEvent) {
        guard !passesThrough else {
            sink(event)
            return
        }
        var event = event
        let lifted: [ModelEvent]? = state.withLock { state in
            guard state.parser != nil else { return nil }
            switch event {
            case .text(let delta):
                return state.keep(state.parser?.feed(delta) ?? [])
            case .metrics(var metrics) where metrics.finished:
                let pieces = state.keep(state.parser?.finish() ?? []) + state.end()
                if !state.calls.isEmpty, metrics.stopReason == .endTurn { metrics.stopReason = .toolCall }
                event = .metrics(metrics)
                return pieces
            default:
                return []
            }
        }
        for piece in lifted ?? [] { sink(piece) }
        if lifted == nil || !event.isText { sink(event) }
    }

    /// True once the model wrote a call the turn already made: the backend should end the turn
    /// (with ``Metrics/StopReason/endTurn``, reported as a tool call).
    public var repeatedCall: Bool { state.withLock(\.repeated) }

    /// What the parser found, and the calls lifted so far.
    private struct State {
        var parser: ToolCallParser?
        var calls: [ToolCall] = []
        var repeated = false
        /// Whitespace held back: sent before the next text, dropped before a call or at the end of
        /// a turn that made calls (the lines between calls are not the answer's content).
        var space = ""

        /// The events to send for `pieces`: none from a repeated call on.
        mutating func keep(_ pieces: [ToolCallParser.Event]) -> [ModelEvent] {
            var events: [ModelEvent] = []
            for piece in pieces where !repeated {
                switch piece {
                case .text(let text) where text.allSatisfy(\.isWhitespace) && space.utf8.count < 4096: space += text
                case .text(let text):
                    events.append(.text(space + text))
                    space = ""
                case .reasoning(let text): if !text.isEmpty { events.append(.reasoning(text)) }
                case .toolCall(let call): events += lift(call)
                case .rejected(let call): events += lift(ToolCall(name: call.name, arguments: call.arguments))
                }
            }
            return events
        }

        /// The whitespace still held, when the turn made no call.
        mutating func end() -> [ModelEvent] {
            defer { space = "" }
            return calls.isEmpty && !space.isEmpty ? [.text(space)] : []
        }

        private mutating func lift(_ call: ToolCall) -> [ModelEvent] {
            space = ""
            repeated = calls.contains { $0.name == call.name && $0.arguments == call.arguments }
            guard !repeated else { return [] }
            calls.append(call)
            return [.toolCall(call)]
        }
    }
}

private extension ModelEvent {
    var isText: Bool { if case .text = self { true } else { false } }
}
