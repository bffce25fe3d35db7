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
public final class LiftingContinuation: Sendable {
    /// Where the lifted events go: the stream's continuation, or a ``ModelEventPipe``.
    private let sink: @Sendable (ModelEvent) -> Void
    /// The parser (nil: nothing to lift) and whether it lifted a call.
    private let state: Mutex<(parser: ToolCallParser?, lifted: Bool)>
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
            state = Mutex((nil, false))
            return
        }
        state = Mutex((ToolCallParser(format: format, tools: tools, startsInReasoning: false), false))
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
        let lifted: [ToolCallParser.Event]? = state.withLock { state in
            guard state.parser != nil else { return nil }
            let pieces: [ToolCallParser.Event]
            switch event {
            case .text(let delta):
                pieces = state.parser?.feed(delta) ?? []
            case .metrics(var metrics) where metrics.finished:
                pieces = state.parser?.finish() ?? []
                if state.lifted || pieces.contains(where: \.isCall), metrics.stopReason == .endTurn { metrics.stopReason = .toolCall }
                event = .metrics(metrics)
            default:
                pieces = []
            }
            if !state.lifted { state.lifted = pieces.contains(where: \.isCall) }
            return pieces
        }
        for piece in lifted ?? [] { send(piece) }
        if lifted == nil || !event.isText { sink(event) }
    }

    private func send(_ piece: ToolCallParser.Event) {
        switch piece {
        case .text(let text): if !text.isEmpty { sink(.text(text)) }
        case .reasoning(let text): if !text.isEmpty { sink(.reasoning(text)) }
        case .toolCall(let call): sink(.toolCall(call))
        case .rejected(let call): sink(.toolCall(ToolCall(name: call.name, arguments: call.arguments)))
        }
    }
}

private extension ModelEvent {
    var isText: Bool { if case .text = self { true } else { false } }
}

private extension ToolCallParser.Event {
    var isCall: Bool {
        switch self {
        case .toolCall, .rejected: true
        case .text, .reasoning: false
        }
    }
}
