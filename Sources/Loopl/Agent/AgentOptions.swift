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
    /// The most UTF-8 bytes of one tool result the model reads; a longer result is cut, with a
    /// note saying so. nil: as many bytes as the context holds tokens (about a quarter of the
    /// context at four bytes a token), 64 KiB when the model does not tell its context.
    public var maxToolResultBytes: Int?
    /// How many times a turn is tried again, from the same messages and options, when the engine
    /// behind the model was lost before the turn ended (``LooplError/isEngineLoss``); 0: never.
    /// Errors of a live engine (a context overflow, an invalid request) are never retried.
    public var turnRetries: Int
    /// Whether a call of a tool whose own ``Tool/approval`` is nil waits for approval.
    public var approval: ToolApproval

    public init(maxIterations: Int = 8, toolTimeout: Duration = .seconds(30), firstToolChoice: ToolChoice = .auto,
                generation: GenerationOptions = GenerationOptions(), maxToolResultBytes: Int? = nil, turnRetries: Int = 1,
                approval: ToolApproval = .allow) {
        self.approval = approval
        self.maxIterations = maxIterations
        self.toolTimeout = toolTimeout
        self.firstToolChoice = firstToolChoice
        self.generation = generation
        self.maxToolResultBytes = maxToolResultBytes
        self.turnRetries = turnRetries
    }
}
