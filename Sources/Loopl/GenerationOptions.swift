/// Which tools the model may, or must, call.
public enum ToolChoice: Sendable, Hashable, Codable {
    /// The model decides.
    case auto
    /// No tools are offered.
    case none
    /// The model must call some tool.
    case required
    /// The model must call this tool.
    case tool(String)

    /// "auto", "none", "required", or the tool's name.
    public var name: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .tool(let name): name
        }
    }

    /// Reads ``name``: any word other than auto, none and required names a tool.
    public init(name: String) {
        switch name {
        case "auto": self = .auto
        case "none": self = .none
        case "required": self = .required
        default: self = .tool(name)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(name: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// How to sample one assistant turn. The defaults are llama.cpp's.
public struct GenerationOptions: Sendable, Hashable, Codable {
    /// The most tokens to generate; nil means until the model stops or the context is full.
    public var maxTokens: Int?
    /// 0 is greedy.
    public var temperature: Double
    public var topP: Double
    /// 0 disables top-k.
    public var topK: Int
    public var minP: Double
    /// 1 disables the penalty.
    public var repeatPenalty: Double
    /// Fixes the sampler's randomness; nil picks a random seed.
    public var seed: UInt32?
    /// Generation stops before the first of these strings; the string is not returned.
    public var stop: [String]
    public var toolChoice: ToolChoice
    /// Keep generating through end-of-generation tokens, for benchmarks that need exact token counts.
    public var ignoreEndOfGeneration: Bool
    /// The shape the answer must take: free text, a JSON object, or JSON that a schema accepts.
    public var responseFormat: ResponseFormat
    /// When the conversation does not fit in the context, drop its oldest turns (never the system
    /// prompt or the last message) instead of failing with `context_overflow`. In-process backend.
    public var truncateHistory: Bool = false
    /// Whether the model thinks before it answers, and how hard.
    public var reasoning: ReasoningSetting = .auto
    /// The most thinking tokens; when they are spent the thinking is closed and the model answers.
    /// nil means no limit.
    public var reasoningBudget: Int?
    /// The conversation this request belongs to, so that a backend serving several at once keeps
    /// each one's cache; an ``Agent`` sets it. nil: a one-off request.
    public var conversation: String?

    public init(maxTokens: Int? = nil, temperature: Double = 0.8, topP: Double = 0.95, topK: Int = 40,
                minP: Double = 0.05, repeatPenalty: Double = 1.0, seed: UInt32? = nil, stop: [String] = [],
                toolChoice: ToolChoice = .auto, ignoreEndOfGeneration: Bool = false,
                responseFormat: ResponseFormat = .text) {
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.seed = seed
        self.stop = stop
        self.toolChoice = toolChoice
        self.ignoreEndOfGeneration = ignoreEndOfGeneration
        self.responseFormat = responseFormat
    }

    private enum CodingKeys: String, CodingKey {
        case maxTokens, temperature, topP, topK, minP, repeatPenalty, seed, stop, toolChoice, ignoreEndOfGeneration, responseFormat
        case truncateHistory, reasoning, reasoningBudget, conversation
    }

    /// Missing keys take their defaults, so a peer may send only what it sets.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = GenerationOptions()
        self.init(maxTokens: try c.decodeIfPresent(Int.self, forKey: .maxTokens),
                  temperature: try c.decodeIfPresent(Double.self, forKey: .temperature) ?? d.temperature,
                  topP: try c.decodeIfPresent(Double.self, forKey: .topP) ?? d.topP,
                  topK: try c.decodeIfPresent(Int.self, forKey: .topK) ?? d.topK,
                  minP: try c.decodeIfPresent(Double.self, forKey: .minP) ?? d.minP,
                  repeatPenalty: try c.decodeIfPresent(Double.self, forKey: .repeatPenalty) ?? d.repeatPenalty,
                  seed: try c.decodeIfPresent(UInt32.self, forKey: .seed),
                  stop: try c.decodeIfPresent([String].self, forKey: .stop) ?? [],
                  toolChoice: try c.decodeIfPresent(ToolChoice.self, forKey: .toolChoice) ?? .auto,
                  ignoreEndOfGeneration: try c.decodeIfPresent(Bool.self, forKey: .ignoreEndOfGeneration) ?? false,
                  responseFormat: try c.decodeIfPresent(ResponseFormat.self, forKey: .responseFormat) ?? .text)
        truncateHistory = try c.decodeIfPresent(Bool.self, forKey: .truncateHistory) ?? false
        reasoning = try c.decodeIfPresent(ReasoningSetting.self, forKey: .reasoning) ?? .auto
        reasoningBudget = try c.decodeIfPresent(Int.self, forKey: .reasoningBudget)
        conversation = try c.decodeIfPresent(String.self, forKey: .conversation)
    }

    /// Greedy sampling (temperature 0), as tests and benchmarks use.
    public static func greedy(maxTokens: Int? = nil) -> GenerationOptions {
        GenerationOptions(maxTokens: maxTokens, temperature: 0, seed: 0)
    }
}
