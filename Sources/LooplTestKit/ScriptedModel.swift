import Loopl
import Synchronization

/// What a ``ScriptedModel`` says in one turn.
public struct ScriptedTurn: Sendable, Hashable {
    public enum Step: Sendable, Hashable {
        /// One token of text.
        case text(String)
        /// A tool call as an event (for a model without markup).
        case toolCall(ToolCall)
    }

    public var steps: [Step]
    public init(_ steps: [Step]) { self.steps = steps }

    /// Text, one token per chunk.
    public static func text(_ chunks: [String]) -> ScriptedTurn { ScriptedTurn(chunks.map(Step.text)) }

    /// Native tool calls.
    public static func toolCalls(_ calls: [ToolCall]) -> ScriptedTurn { ScriptedTurn(calls.map(Step.toolCall)) }

    /// Tool calls written as Hermes-style text, cut into small chunks as a real model streams them.
    public static func toolCallText(_ calls: [ToolCall], before: String = "") -> ScriptedTurn {
        var text = before
        for call in calls {
            let body: JSONValue = ["name": .string(call.name), "arguments": .object(call.arguments)]
            text += "<tool_call>\n" + body.jsonText(style: .python) + "\n</tool_call>"
        }
        var chunks: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            chunks.append(String(rest.prefix(5)))
            rest = rest.dropFirst(5)
        }
        return .text(chunks)
    }
}

/// A request as a ``ScriptedModel`` sees it.
public struct ScriptedRequest: Sendable {
    public var messages: [Message]
    public var tools: [ToolSpec]
    public var options: GenerationOptions
}

/// A model that replays scripted turns, for testing the agent loop and the conformance suite.
///
/// It never shows that a real backend works. Tokens are chunks; prompt tokens are estimated
/// (4 characters a token). It serves `parallel` requests at once and queues up to `maxQueue` more,
/// as real backends do.
public final class ScriptedModel: Model {
    /// A deliberate defect, to show that ``ModelConformance`` catches it.
    public enum Fault: Sendable, Hashable {
        case ignoresMaxTokens, ignoresStop, omitsFinalMetrics, ignoresCancellation
        case ignoresContextSize, callsWrongTool, answersAfterClose
        /// Streams its markup as it is, without lifting it.
        case leaksMarkup
    }

    /// The markup its scripted text carries, which it lifts itself; nil: its calls are steps.
    public let markup: ToolCallFormat?
    private let size: Int
    private let faults: Set<Fault>
    private let delay: Duration
    private let respond: @Sendable (ScriptedRequest) -> ScriptedTurn
    private let queue: RequestQueue
    private let state = Mutex<(requests: [ScriptedRequest], closed: Bool)>(([], false))

    /// A model that answers with `respond`.
    public init(markup: ToolCallFormat? = nil, contextSize: Int = 2048, delay: Duration = .milliseconds(2),
                faults: Set<Fault> = [], parallel: Int = 1, maxQueue: Int = 64,
                respond: @escaping @Sendable (ScriptedRequest) -> ScriptedTurn) {
        self.markup = markup
        self.queue = RequestQueue(parallel: parallel, maxQueue: maxQueue)
        self.size = contextSize
        self.faults = faults
        self.delay = delay
        self.respond = respond
    }

    /// A model that plays `turns` in order, then repeats the last one.
    public convenience init(markup: ToolCallFormat? = nil, turns: [ScriptedTurn]) {
        let counter = Mutex(0)
        self.init(markup: markup) { _ in
            counter.withLock { index in
                defer { index += 1 }
                return turns.isEmpty ? .text([]) : turns[min(index, turns.count - 1)]
            }
        }
    }

    /// A model that behaves like a well-made backend: a short sentence, repeated when asked to
    /// ignore end-of-generation; a call to the required tool, with placeholder arguments.
    public static func conformant(markup: ToolCallFormat? = nil, contextSize: Int = 2048,
                                  delay: Duration = .milliseconds(2), faults: Set<Fault> = [],
                                  parallel: Int = 1, maxQueue: Int = 64) -> ScriptedModel {
        ScriptedModel(markup: markup, contextSize: contextSize, delay: delay, faults: faults,
                      parallel: parallel, maxQueue: maxQueue) { request in
            let tool: ToolSpec?
            switch request.options.toolChoice {
            case .required: tool = request.tools.first
            case .tool(let name): tool = request.tools.first { $0.name == name }
            case .auto, .none: tool = nil
            }
            guard var tool else {
                return .text(["Hello", "!", " I", " am", " a", " scripted", " model", "."])
            }
            if faults.contains(.callsWrongTool) { tool.name += "_wrong" }
            let call = ToolCall(name: tool.name, arguments: placeholderArguments(for: tool.parameters))
            if markup != nil { return .toolCallText([call]) }
            return .toolCalls([call])
        }
    }

    /// The requests served so far.
    public var requests: [ScriptedRequest] { state.withLock { $0.requests } }

    public var contextSize: Int { get async throws { size } }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>
    {
        let request = ScriptedRequest(messages: messages, tools: tools, options: options)
        return .generating { continuation in
            let lifted = self.faults.contains(.leaksMarkup) ? nil : self.markup
            let events = LiftingContinuation(continuation, format: lifted, tools: tools)
            try await self.queue.withPlace { try await self.play(request, into: events) }
        }
    }

    public func close() async {
        state.withLock { $0.closed = true }
    }

    private func play(_ request: ScriptedRequest, into continuation: LiftingContinuation) async throws {
        guard faults.contains(.answersAfterClose) || !state.withLock({ $0.closed }) else { throw LooplError(.closed, "The scripted model was closed.") }
        state.withLock { $0.requests.append(request) }
        let options = request.options
        let promptTokens = request.messages.reduce(0) { $0 + 4 + $1.text.count / 4 }
        if !faults.contains(.ignoresContextSize), promptTokens + (options.maxTokens ?? 0) > size {
            throw LooplError(.contextOverflow, "The prompt needs \(promptTokens) tokens plus \(options.maxTokens ?? 0) to generate, but the context holds \(size).")
        }
        let limit = faults.contains(.ignoresMaxTokens) ? Int.max : (options.maxTokens ?? Int.max)
        var metrics = Metrics(promptTokens: promptTokens, contextMax: size, estimated: true)
        var filter = StopStringFilter(stops: faults.contains(.ignoresStop) ? [] : options.stop)
        var budget = ScriptedBudget(limit: options.reasoningBudget)
        var reason = Metrics.StopReason.endTurn
        for var step in steps(of: respond(request), options: options, limit: limit) {
            guard budget.take(&step) else { continue }
            metrics.reasoningTokens = budget.tokens
            try await pause()
            if metrics.generatedTokens >= limit { reason = .maxTokens; break }
            metrics.generatedTokens += 1
            switch step {
            case .text(let chunk):
                let visible = filter.feed(chunk)
                if !visible.isEmpty { continuation.yield(.text(visible)) }
            case .toolCall(let call):
                continuation.yield(.toolCall(call))
                reason = .toolCall
            }
            if filter.stopped { reason = .stop; break }
        }
        if metrics.generatedTokens >= limit, reason == .endTurn { reason = .maxTokens }
        let rest = filter.flush()
        if !rest.isEmpty { continuation.yield(.text(rest)) }
        metrics.finished = true
        metrics.stopReason = reason
        metrics.contextUsed = promptTokens + metrics.generatedTokens
        if !faults.contains(.omitsFinalMetrics) { continuation.yield(.metrics(metrics)) }
    }

    /// The turn's steps; its text repeated up to `limit` when end-of-generation is ignored.
    private func steps(of turn: ScriptedTurn, options: GenerationOptions, limit: Int) -> [ScriptedTurn.Step] {
        let textSteps = turn.steps.filter { if case .text = $0 { true } else { false } }
        var steps = turn.steps
        if options.backend.ignoreEndOfGeneration, !textSteps.isEmpty, limit != Int.max {
            while steps.count < limit { steps += textSteps }
        }
        return steps
    }

    /// One token's delay; a model that ignores cancellation sleeps where cancelling cannot reach.
    private func pause() async throws {
        if faults.contains(.ignoresCancellation) {
            let delay = self.delay
            await Task.detached { try? await Task.sleep(for: delay) }.value
        } else {
            try await Task.sleep(for: delay)
        }
    }
}

/// The thinking budget, as a backend that samples itself applies it: when it is spent the
/// closing marker comes next and the rest of the script's thinking is cut.
private struct ScriptedBudget {
    var budget: ReasoningBudget
    var scripted = ReasoningBudget(limit: nil, promptText: "")
    var cut = false

    init(limit: Int?) { budget = ReasoningBudget(limit: limit, promptText: "") }

    var tokens: Int { budget.tokens }

    /// Whether `step` is written; a text step may become the closing marker.
    mutating func take(_ step: inout ScriptedTurn.Step) -> Bool {
        guard case .text(let chunk) = step else { return true }
        let inScriptedReasoning = scripted.isReasoning
        scripted.record(chunk)
        if cut, inScriptedReasoning { return false }
        if let close = budget.closing() {
            // Only thinking spends the budget: this chunk is thinking, and is dropped.
            cut = true
            step = .text(close)
        }
        if case .text(let text) = step { budget.record(text) }
        return true
    }
}

/// Placeholder arguments that fit a JSON Schema's declared properties.
func placeholderArguments(for schema: JSONValue) -> JSONObject {
    var arguments = JSONObject()
    for (name, property) in schema["properties"]?.objectValue ?? [:] {
        switch property["type"]?.stringValue {
        case "integer": arguments[name] = 1
        case "number": arguments[name] = 1.5
        case "boolean": arguments[name] = true
        case "array": arguments[name] = []
        case "object": arguments[name] = [:]
        default: arguments[name] = .string(property["enum"]?.arrayValue?.first?.stringValue ?? "Paris")
        }
    }
    return arguments
}
