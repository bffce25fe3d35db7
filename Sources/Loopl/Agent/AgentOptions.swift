/// How an ``Agent`` runs.
public struct AgentOptions: Sendable, Hashable {
    /// The most model turns in one run.
    public var maxIterations: Int
    /// How long one tool call may take before it counts as failed.
    public var toolTimeout: Duration
    /// The tool choice of the first iteration; later iterations use `.auto`.
    public var firstToolChoice: ToolChoice
    /// Sampling for every turn (its `toolChoice` is replaced as above).
    public var generation: GenerationOptions

    public init(maxIterations: Int = 8, toolTimeout: Duration = .seconds(30), firstToolChoice: ToolChoice = .auto,
                generation: GenerationOptions = GenerationOptions()) {
        self.maxIterations = maxIterations
        self.toolTimeout = toolTimeout
        self.firstToolChoice = firstToolChoice
        self.generation = generation
    }
}
