import Loopl

/// One request of a `loopl bench` workload (shared-prefix, prompt-cache, copy, free), as the host saw it.
struct CacheSample: Sendable, Equatable {
    /// From the request to its first content event, in milliseconds.
    var ttftMs: Double
    var promptTokens: Int
    var cachedPromptTokens: Int
    /// Tokens generated after the first over the time from the first to the last event; 0 when
    /// fewer than two tokens came.
    var decodeTokensPerSecond: Double
    /// The answer's text, with each tool call's name and arguments in brackets.
    var text: String
    /// Tokens drafted by speculative decoding, and how many of them held.
    var draftTokens = 0
    var acceptedDraftTokens = 0
    /// The answer as the conversation's next turn sends it back.
    var reply = Message.assistant("")
    /// The time its model took to load, where the workload loads one for it.
    var loadMs: Double?

    /// The prompt tokens the backend evaluated.
    var evaluatedTokens: Int { promptTokens - cachedPromptTokens }

    /// Runs one greedy request to its end; `before` runs first and counts in the TTFT (a slot
    /// restored before the request).
    static func measure(_ model: any Model, _ messages: [Message], tools: [ToolSpec], options: GenerationOptions,
                        before: () async throws -> Void = {}) async throws -> CacheSample {
        let start = ContinuousClock.now
        try await before()
        var first: ContinuousClock.Instant?
        var final: Metrics?
        var text = "", answer = ""
        var calls: [ToolCall] = []
        for try await event in model.generate(messages: messages, tools: tools, options: options) {
            switch event {
            case .text(let piece) where piece.isEmpty: break
            case .text(let piece):
                if first == nil { first = .now }
                text += piece
                answer += piece
            case .reasoning: if first == nil { first = .now }
            case .toolCall(let call):
                if first == nil { first = .now }
                text += "[\(call.name) \(JSONValue.object(call.arguments).jsonText())]"
                calls.append(call)
            case .metrics(let metrics): final = metrics
            }
        }
        let end = ContinuousClock.now
        guard let final, final.finished else { throw LooplError(.protocolViolation, "The backend sent no final metrics.") }
        let firstAt = first ?? end
        let seconds = (end - firstAt).seconds
        let decode = seconds > 0 && final.generatedTokens > 1 ? Double(final.generatedTokens - 1) / seconds : 0
        return CacheSample(ttftMs: (firstAt - start).milliseconds, promptTokens: final.promptTokens,
                           cachedPromptTokens: final.cachedPromptTokens, decodeTokensPerSecond: decode, text: text,
                           draftTokens: final.draftTokens, acceptedDraftTokens: final.acceptedDraftTokens,
                           reply: .assistant(text: answer, toolCalls: calls))
    }
}
