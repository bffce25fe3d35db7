extension LlamaModel {
    /// One step of the decode loop: what its batch decoded and how long it took. A sequence that
    /// is generating gets one token a step, so a step's duration is its inter-token latency.
    public struct Step: Sendable, Hashable {
        /// What the batch decoded, one entry a sequence in the batch's order (padding left out);
        /// empty when the decode failed.
        public var batch: [Entry] = []
        /// Tokens the draft model evaluated for this step's drafts (`speculative.type` `"draft"`).
        public var draftModelTokens = 0
        /// From building the batch to the last sampled token: `llama_decode` and sampling.
        public var duration = Duration.zero
        /// Prompt tokens evaluated in a pass of their own before the generated tokens (chunks that
        /// did not end their prompt, while sequences generated), and the time until that pass ended.
        public var chunkTokens = 0
        public var chunkDuration = Duration.zero

        public init(batch: [Entry] = [], draftModelTokens: Int = 0, duration: Duration = .zero) {
            self.batch = batch
            self.draftModelTokens = draftModelTokens
            self.duration = duration
        }

        /// Sequences whose next token this step decoded.
        public var generating: Int { batch.count { $0.kind == .generated } }
        /// Prompt tokens this step evaluated, of requests that arrived.
        public var promptTokens: Int { batch.filter { $0.kind == .prompt }.reduce(0) { $0 + $1.tokens } }

        /// One sequence's tokens in a step's batch.
        public struct Entry: Sendable, Hashable {
            public enum Kind: Sendable, Hashable {
                /// Its last sampled token, and the tokens drafted after it.
                case generated
                /// A chunk of its prompt.
                case prompt
            }

            public var sequence: Int
            public var kind: Kind
            public var tokens: Int

            public init(sequence: Int, kind: Kind, tokens: Int) {
                self.sequence = sequence
                self.kind = kind
                self.tokens = tokens
            }
        }
    }

    /// Calls `observer` on the decode loop's thread after every step, until it is replaced or
    /// nil; for benchmarks of the latency of running streams while others arrive. It must be quick.
    public func observeSteps(_ observer: (@Sendable (Step) -> Void)?) {
        session.observe(observer)
    }
}
