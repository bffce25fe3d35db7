/// Counts and timings of one generation.
public struct Metrics: Sendable, Hashable, Codable {
    /// Why a generation ended.
    public enum StopReason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The model ended its turn.
        case endTurn = "end_turn"
        /// A stop string appeared.
        case stop
        /// `maxTokens` were generated.
        case maxTokens = "max_tokens"
        /// The model finished a tool call.
        case toolCall = "tool_call"
        /// The caller cancelled.
        case cancelled
    }

    /// Tokens in the prompt, including those reused from a cache.
    public var promptTokens = 0
    /// Prompt tokens reused from a cache and not evaluated again.
    public var cachedPromptTokens = 0
    /// Tokens generated so far.
    public var generatedTokens = 0
    /// Milliseconds from the request to the first generated token.
    public var ttftMs: Double?
    /// Milliseconds the engine itself spent evaluating the prompt, when it reports it.
    public var promptEvalMs: Double?
    /// Decode speed, generated tokens per second after the first.
    public var tokensPerSecond: Double?
    /// Tokens in the context after this generation.
    public var contextUsed = 0
    /// The context size.
    public var contextMax = 0
    /// True on the last metrics of a turn.
    public var finished = false
    /// Why the generation ended; nil until it has.
    public var stopReason: StopReason?
    /// True when the counts come from a heuristic rather than the tokenizer.
    public var estimated = false
    /// Tokens of thinking among ``generatedTokens``, where the backend counts them (0 otherwise).
    public var reasoningTokens = 0
    /// Tokens drafted for speculative decoding (0 without drafting).
    public var draftTokens = 0
    /// Drafted tokens that the model confirmed.
    public var acceptedDraftTokens = 0

    /// The JSON keys in the order they are written. Unknown timings are left out, and the thinking
    /// and draft counts when 0, so that a turn without them reads as it did before they existed;
    /// a missing count is 0 and a missing flag false, so a peer may send only what it knows.
    package static let fields: [CodingField<Metrics>] = [
        .init("promptTokens", \.promptTokens), .init("cachedPromptTokens", \.cachedPromptTokens),
        .init("generatedTokens", \.generatedTokens), .init("ttftMs", \.ttftMs), .init("promptEvalMs", \.promptEvalMs),
        .init("tokensPerSecond", \.tokensPerSecond), .init("contextUsed", \.contextUsed), .init("contextMax", \.contextMax),
        .init("finished", \.finished), .init("stopReason", \.stopReason), .init("estimated", \.estimated),
        .init("reasoningTokens", \.reasoningTokens, omitting: 0), .init("draftTokens", \.draftTokens, omitting: 0),
        .init("acceptedDraftTokens", \.acceptedDraftTokens, omitting: 0),
    ]

    public init(promptTokens: Int = 0, cachedPromptTokens: Int = 0, generatedTokens: Int = 0,
                ttftMs: Double? = nil, promptEvalMs: Double? = nil, tokensPerSecond: Double? = nil, contextUsed: Int = 0,
                contextMax: Int = 0, finished: Bool = false, stopReason: StopReason? = nil,
                estimated: Bool = false, reasoningTokens: Int = 0, draftTokens: Int = 0, acceptedDraftTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.cachedPromptTokens = cachedPromptTokens
        self.generatedTokens = generatedTokens
        self.ttftMs = ttftMs
        self.promptEvalMs = promptEvalMs
        self.tokensPerSecond = tokensPerSecond
        self.contextUsed = contextUsed
        self.contextMax = contextMax
        self.finished = finished
        self.stopReason = stopReason
        self.estimated = estimated
        self.reasoningTokens = reasoningTokens
        self.draftTokens = draftTokens
        self.acceptedDraftTokens = acceptedDraftTokens
    }

    public init(from decoder: any Decoder) throws {
        self = try CodingField.decode(Self.fields, into: Metrics(), from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try CodingField.encode(Self.fields, of: self, to: encoder)
    }
}
