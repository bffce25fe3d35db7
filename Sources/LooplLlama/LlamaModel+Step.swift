extension LlamaModel {
    /// One step of the decode loop: what it evaluated and how long it took. A sequence that is
    /// generating gets one token a step, so a step's duration is its inter-token latency.
    public struct Step: Sendable, Hashable {
        /// Sequences whose next token this step evaluated (those generating).
        public var generating = 0
        /// Prompt tokens this step evaluated, of requests that arrived.
        public var promptTokens = 0
        /// Tokens the draft model evaluated for this step's drafts (`speculative.type` `"draft"`).
        public var draftModelTokens = 0
        /// From building the batch to the last sampled token: `llama_decode` and sampling.
        public var duration = Duration.zero

        public init(generating: Int = 0, promptTokens: Int = 0, draftModelTokens: Int = 0, duration: Duration = .zero) {
            self.generating = generating
            self.promptTokens = promptTokens
            self.draftModelTokens = draftModelTokens
            self.duration = duration
        }
    }

    /// Calls `observer` on the decode loop's thread after every step, until it is replaced or
    /// nil; for benchmarks of the latency of running streams while others arrive. It must be quick.
    public func observeSteps(_ observer: (@Sendable (Step) -> Void)?) {
        session.observe(observer)
    }
}
