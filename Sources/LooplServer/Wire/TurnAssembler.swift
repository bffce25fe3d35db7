import Loopl

/// Turns the chunks of one streamed answer into ``ModelEvent``s: text through the stop-string
/// filter, tool-call fragments assembled into calls, and counts into ``Metrics``.
package struct TurnAssembler {
    /// Why the server said it stopped.
    package enum Finish: Equatable {
        case endOfGeneration, stopString, length, toolCalls
        /// "stop" from an OpenAI stream: an end of generation or a stop string.
        case stopOrEnd
    }

    private let options: GenerationOptions
    private let contextMax: Int
    private let start: ContinuousClock.Instant
    private let promptCharacters: Int
    private let expectsTimings: Bool
    private var stops: StopStringFilter
    private var calls: [Int: PartialCall] = [:]
    private var textChunks = 0
    private var firstToken: ContinuousClock.Instant?
    private var lastReport: ContinuousClock.Instant
    private var timings: JSONValue?
    private var usage: JSONValue?
    /// True once a stop string was seen here (a server that does not apply stop strings itself).
    package private(set) var stoppedByFilter = false
    /// Why the server said it stopped, once it said so.
    package var ending: Finish?

    /// `expectsTimings` (llama-server) holds back metrics until exact counts have arrived.
    package init(options: GenerationOptions, contextMax: Int, start: ContinuousClock.Instant, promptCharacters: Int,
                 expectsTimings: Bool) {
        self.expectsTimings = expectsTimings
        self.options = options
        self.contextMax = contextMax
        self.start = start
        self.promptCharacters = promptCharacters
        self.stops = StopStringFilter(stops: options.stop)
        self.lastReport = start
    }

    /// A piece of the answer's text.
    package mutating func text(_ delta: String) -> ModelEvent? {
        guard !delta.isEmpty, !stoppedByFilter else { return nil }
        markToken()
        textChunks += 1
        let visible = stops.feed(delta)
        if stops.stopped { stoppedByFilter = true }
        return visible.isEmpty ? nil : .text(visible)
    }

    /// A piece of the answer's thinking, as the server separated it (`reasoning_content`).
    package mutating func reasoning(_ delta: String) -> ModelEvent? {
        guard !delta.isEmpty, !stoppedByFilter else { return nil }
        markToken()
        return .reasoning(delta)
    }

    /// A fragment of an OpenAI `tool_calls` delta.
    package mutating func toolCallDelta(_ delta: JSONValue) {
        markToken()
        let index = delta["index"]?.intValue ?? calls.count
        var call = calls[index] ?? PartialCall()
        if let id = delta["id"]?.stringValue, !id.isEmpty { call.id = id }
        if let name = delta["function"]?["name"]?.stringValue { call.name += name }
        if let arguments = delta["function"]?["arguments"]?.stringValue { call.arguments += arguments }
        calls[index] = call
    }

    package mutating func record(timings: JSONValue?, usage: JSONValue?) {
        if let timings, timings.objectValue != nil { self.timings = timings }
        if let usage, usage.objectValue != nil { self.usage = usage }
    }

    /// Metrics so far, at most every 250 ms.
    package mutating func interimMetrics() -> ModelEvent? {
        let now = ContinuousClock.now
        guard now - lastReport >= .milliseconds(250), timings != nil || !expectsTimings, firstToken != nil else { return nil }
        lastReport = now
        return .metrics(metrics(finished: false, reason: nil))
    }

    /// The last events: held-back text, the calls, and the final metrics.
    package mutating func finish() throws -> [ModelEvent] {
        let finish = ending ?? .stopOrEnd
        var events: [ModelEvent] = []
        let rest = stoppedByFilter ? "" : stops.flush()
        if !rest.isEmpty { events.append(.text(rest)) }
        for index in calls.keys.sorted() {
            guard let call = calls[index] else { continue }
            events.append(.toolCall(try call.toolCall()))
        }
        let reason: Metrics.StopReason
        switch finish {
        case _ where stoppedByFilter: reason = .stop
        case .length: reason = .maxTokens
        case .toolCalls: reason = .toolCall
        case .stopString: reason = .stop
        case .endOfGeneration: reason = calls.isEmpty ? .endTurn : .toolCall
        case .stopOrEnd:
            // OpenAI streams say "stop" for both; with end-of-generation ignored only a stop string can end it.
            if !calls.isEmpty { reason = .toolCall }
            else if !options.stop.isEmpty && options.backend.ignoreEndOfGeneration { reason = .stop }
            else { reason = .endTurn }
        }
        var last = metrics(finished: true, reason: reason)
        if reason == .endTurn, timings?["predicted_n"] != nil, last.generatedTokens > 0 {
            // llama-server counts the end-of-generation token; Loopl counts the tokens of the answer.
            last.generatedTokens -= 1
            last.contextUsed -= 1
        }
        events.append(.metrics(last))
        return events
    }

    private mutating func markToken() {
        if firstToken == nil { firstToken = ContinuousClock.now }
    }

    private func metrics(finished: Bool, reason: Metrics.StopReason?) -> Metrics {
        var metrics = Metrics(contextMax: contextMax, finished: finished, stopReason: reason)
        let cached = timings?["cache_n"]?.intValue ?? usage?["prompt_tokens_details"]?["cached_tokens"]?.intValue
        let evaluated = timings?["prompt_n"]?.intValue
        if let evaluated, let cached {
            metrics.promptTokens = cached + evaluated
        } else if let prompt = usage?["prompt_tokens"]?.intValue {
            metrics.promptTokens = prompt
        } else {
            metrics.promptTokens = max(1, promptCharacters / 4)
            metrics.estimated = true
        }
        metrics.cachedPromptTokens = cached ?? 0
        if let generated = timings?["predicted_n"]?.intValue ?? usage?["completion_tokens"]?.intValue {
            metrics.generatedTokens = generated
        } else {
            metrics.generatedTokens = textChunks
            metrics.estimated = true
        }
        if let firstToken {
            metrics.ttftMs = (firstToken - start).milliseconds
        } else if let promptMs = timings?["prompt_ms"]?.doubleValue {
            metrics.ttftMs = promptMs
        }
        metrics.promptEvalMs = timings?["prompt_ms"]?.doubleValue
        if let speed = timings?["predicted_per_second"]?.doubleValue, speed.isFinite, speed > 0 {
            metrics.tokensPerSecond = speed
        } else if let firstToken, metrics.generatedTokens > 1 {
            let seconds = (ContinuousClock.now - firstToken).seconds
            if seconds > 0 { metrics.tokensPerSecond = Double(metrics.generatedTokens - 1) / seconds }
        }
        metrics.contextUsed = metrics.promptTokens + metrics.generatedTokens
        metrics.reasoningTokens = usage?["completion_tokens_details"]?["reasoning_tokens"]?.intValue ?? 0
        metrics.draftTokens = timings?["draft_n"]?.intValue ?? 0
        metrics.acceptedDraftTokens = timings?["draft_n_accepted"]?.intValue ?? 0
        return metrics
    }
}

/// One tool call assembled from stream fragments.
private struct PartialCall {
    var id = ""
    var name = ""
    var arguments = ""

    func toolCall() throws -> ToolCall {
        guard !name.isEmpty else {
            throw LooplError(.protocolViolation, "The server streamed a tool call without a name (arguments: \(arguments.prefix(200))).")
        }
        let value: JSONValue = ["id": .string(id.isEmpty ? ToolCall.makeId() : id),
                                "function": ["name": .string(name), "arguments": .string(arguments)]]
        do {
            return try ToolCall(templateValue: value)
        } catch {
            throw LooplError(.protocolViolation, "The server streamed arguments for '\(name)' that are not a JSON object: \(arguments.prefix(200)).")
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var milliseconds: Double { seconds * 1000 }
}
