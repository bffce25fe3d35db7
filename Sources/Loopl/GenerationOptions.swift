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

    public init(maxTokens: Int? = nil, temperature: Double = 0.8, topP: Double = 0.95, topK: Int = 40,
                minP: Double = 0.05, repeatPenalty: Double = 1.0, seed: UInt32? = nil, stop: [String] = [],
                toolChoice: ToolChoice = .auto, ignoreEndOfGeneration: Bool = false) {
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
    }

    /// Greedy sampling (temperature 0), as tests and benchmarks use.
    public static func greedy(maxTokens: Int? = nil) -> GenerationOptions {
        GenerationOptions(maxTokens: maxTokens, temperature: 0, seed: 0)
    }
}
