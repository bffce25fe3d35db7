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

/// How to sample one assistant turn. The defaults are llama.cpp's. Each field is declared once,
/// with its default, and has one row in ``fields``, which both coding directions read; a peer may
/// send only what it sets.
public struct GenerationOptions: Sendable, Hashable, Codable {
    /// The most tokens to generate; nil means until the model stops or the context is full.
    public var maxTokens: Int?
    /// 0 is greedy.
    public var temperature = 0.8
    public var topP = 0.95
    /// 0 disables top-k.
    public var topK = 40
    public var minP = 0.05
    /// 1 disables the penalty.
    public var repeatPenalty = 1.0
    /// Fixes the sampler's randomness; nil picks a random seed.
    public var seed: UInt32?
    /// Generation stops before the first of these strings; the string is not returned.
    public var stop: [String] = []
    public var toolChoice = ToolChoice.auto
    /// Whether the model may write more than one call in a turn; false (the default here) holds
    /// the call grammar to exactly one. The OpenAI and Anthropic dialects of `loopl serve` set it
    /// from the request, true unless it says otherwise (`parallel_tool_calls`).
    public var parallelToolCalls = false
    /// The shape the answer must take: free text, a JSON object, or JSON that a schema accepts.
    public var responseFormat = ResponseFormat.text
    /// Whether the model thinks before it answers, and how hard.
    public var reasoning = ReasoningSetting.auto
    /// The most thinking tokens; when they are spent the thinking is closed and the model answers.
    /// nil means no limit.
    public var reasoningBudget: Int?
    /// The conversation this request belongs to, so that a backend serving several at once keeps
    /// each one's cache; an ``Agent`` sets it. nil: a one-off request.
    public var conversation: String?
    /// Controls of the backend that are not sampling.
    public var backend = BackendExtras()

    /// Controls of the backend that are not sampling; on the wire they sit beside the sampling fields.
    public struct BackendExtras: Sendable, Hashable {
        /// Keep generating instead of ending, for benchmarks that need exact token counts: no
        /// end-of-generation token is picked (llama-server's `ignore_eos`). Every built-in backend honors it.
        public var ignoreEndOfGeneration = false
        /// When the conversation does not fit in the context, drop its oldest turns (never the system
        /// prompt or the last message) instead of failing with `context_overflow`. In-process backend.
        public var truncateHistory = false

        public init(ignoreEndOfGeneration: Bool = false, truncateHistory: Bool = false) {
            self.ignoreEndOfGeneration = ignoreEndOfGeneration
            self.truncateHistory = truncateHistory
        }
    }

    /// The JSON keys, in the order they are written.
    package static let fields: [CodingField<GenerationOptions>] = [
        .init("maxTokens", \.maxTokens), .init("temperature", \.temperature), .init("topP", \.topP),
        .init("topK", \.topK), .init("minP", \.minP), .init("repeatPenalty", \.repeatPenalty), .init("seed", \.seed),
        .init("stop", \.stop), .init("toolChoice", \.toolChoice),
        .init("parallelToolCalls", \.parallelToolCalls),
        .init("ignoreEndOfGeneration", \.backend.ignoreEndOfGeneration),
        .init("responseFormat", \.responseFormat),
        .init("truncateHistory", \.backend.truncateHistory),
        .init("reasoning", \.reasoning), .init("reasoningBudget", \.reasoningBudget), .init("conversation", \.conversation),
    ]

    /// Every field at its declared default, for the init's defaults and for decoding.
    @usableFromInline static let defaults = GenerationOptions(defaults: ())

    @usableFromInline init(defaults: Void) {}

    public init(maxTokens: Int? = nil, temperature: Double = defaults.temperature, topP: Double = defaults.topP,
                topK: Int = defaults.topK, minP: Double = defaults.minP, repeatPenalty: Double = defaults.repeatPenalty,
                seed: UInt32? = nil, stop: [String] = [], toolChoice: ToolChoice = defaults.toolChoice,
                responseFormat: ResponseFormat = defaults.responseFormat, reasoning: ReasoningSetting = defaults.reasoning,
                reasoningBudget: Int? = nil, conversation: String? = nil, backend: BackendExtras = BackendExtras()) {
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.seed = seed
        self.stop = stop
        self.toolChoice = toolChoice
        self.responseFormat = responseFormat
        self.reasoning = reasoning
        self.reasoningBudget = reasoningBudget
        self.conversation = conversation
        self.backend = backend
    }

    public init(from decoder: any Decoder) throws {
        self = try CodingField.decode(Self.fields, into: Self.defaults, from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try CodingField.encode(Self.fields, of: self, to: encoder)
    }

    /// Greedy sampling (temperature 0), as tests and benchmarks use.
    public static func greedy(maxTokens: Int? = nil) -> GenerationOptions {
        GenerationOptions(maxTokens: maxTokens, temperature: 0, seed: 0)
    }
}
