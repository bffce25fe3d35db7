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
    public var promptTokens: Int
    /// Prompt tokens reused from a cache and not evaluated again.
    public var cachedPromptTokens: Int
    /// Tokens generated so far.
    public var generatedTokens: Int
    /// Milliseconds from the request to the first generated token.
    public var ttftMs: Double?
    /// Milliseconds the engine itself spent evaluating the prompt, when it reports it.
    public var promptEvalMs: Double?
    /// Decode speed, generated tokens per second after the first.
    public var tokensPerSecond: Double?
    /// Tokens in the context after this generation.
    public var contextUsed: Int
    /// The context size.
    public var contextMax: Int
    /// True on the last metrics of a turn.
    public var finished: Bool
    /// Why the generation ended; nil until it has.
    public var stopReason: StopReason?
    /// True when the counts come from a heuristic rather than the tokenizer.
    public var estimated: Bool
    /// Tokens of thinking among ``generatedTokens``, where the backend counts them (0 otherwise).
    public var reasoningTokens: Int
    /// Tokens drafted for speculative decoding, and those of them the model confirmed (0 without drafting).
    public var draftTokens = 0
    public var acceptedDraftTokens = 0

    public init(promptTokens: Int = 0, cachedPromptTokens: Int = 0, generatedTokens: Int = 0,
                ttftMs: Double? = nil, promptEvalMs: Double? = nil, tokensPerSecond: Double? = nil, contextUsed: Int = 0,
                contextMax: Int = 0, finished: Bool = false, stopReason: StopReason? = nil,
                estimated: Bool = false, reasoningTokens: Int = 0) {
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
    }

    /// Missing counts are 0 and missing flags false, so a peer may send only what it knows.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        self.init(promptTokens: try count(.promptTokens), cachedPromptTokens: try count(.cachedPromptTokens),
                  generatedTokens: try count(.generatedTokens), ttftMs: try c.decodeIfPresent(Double.self, forKey: .ttftMs),
                  promptEvalMs: try c.decodeIfPresent(Double.self, forKey: .promptEvalMs),
                  tokensPerSecond: try c.decodeIfPresent(Double.self, forKey: .tokensPerSecond),
                  contextUsed: try count(.contextUsed), contextMax: try count(.contextMax),
                  finished: try c.decodeIfPresent(Bool.self, forKey: .finished) ?? false,
                  stopReason: try c.decodeIfPresent(StopReason.self, forKey: .stopReason),
                  estimated: try c.decodeIfPresent(Bool.self, forKey: .estimated) ?? false,
                  reasoningTokens: try count(.reasoningTokens))
        draftTokens = try count(.draftTokens)
        acceptedDraftTokens = try count(.acceptedDraftTokens)
    }

    private enum CodingKeys: String, CodingKey {
        case promptTokens, cachedPromptTokens, generatedTokens, ttftMs, promptEvalMs, tokensPerSecond, contextUsed, contextMax
        case finished, stopReason, estimated, reasoningTokens, draftTokens, acceptedDraftTokens
    }

    /// Optional timings are left out when unknown, and `reasoningTokens` and the draft counts when 0, so that a turn
    /// without thinking reads as it did before the count existed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(promptTokens, forKey: .promptTokens)
        try c.encode(cachedPromptTokens, forKey: .cachedPromptTokens)
        try c.encode(generatedTokens, forKey: .generatedTokens)
        try c.encodeIfPresent(ttftMs, forKey: .ttftMs)
        try c.encodeIfPresent(promptEvalMs, forKey: .promptEvalMs)
        try c.encodeIfPresent(tokensPerSecond, forKey: .tokensPerSecond)
        try c.encode(contextUsed, forKey: .contextUsed)
        try c.encode(contextMax, forKey: .contextMax)
        try c.encode(finished, forKey: .finished)
        try c.encodeIfPresent(stopReason, forKey: .stopReason)
        try c.encode(estimated, forKey: .estimated)
        if reasoningTokens != 0 { try c.encode(reasoningTokens, forKey: .reasoningTokens) }
        if draftTokens != 0 {
            try c.encode(draftTokens, forKey: .draftTokens)
            try c.encode(acceptedDraftTokens, forKey: .acceptedDraftTokens)
        }
    }
}
