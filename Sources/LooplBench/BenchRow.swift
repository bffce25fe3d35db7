/// One row of `loopl bench`'s results, whatever the workload: what was measured (a backend, a
/// reference engine, a workload's row), where (its coordinates) and its figures. Every table,
/// the goals and the JSON (docs/bench.md) read rows of this one type; a figure a workload does
/// not measure is nil, and left out of the JSON.
struct BenchRow: Sendable, Equatable, Codable {
    /// The table a row belongs to.
    enum Workload: String, Sendable, Codable {
        /// The backends one at a time against llama-bench.
        case speed
        /// `--concurrency`: N streams at once against llama-batched-bench.
        case throughput
        /// `--agent`: one row per iteration of a conversation.
        case agent
        /// `--workload`: speculative decoding, and the prefix and prompt caches.
        case copy, free, sharedPrefix = "shared-prefix", promptCache = "prompt-cache"
        /// `--workload long-arrival`: a long prompt arriving while streams decode.
        case longArrival = "long-arrival"
        /// `--workload forced-call`: decode under a forced call's grammar against free text.
        case forcedCall = "forced-call"
        /// `--workload embeddings`: inputs embedded per second at batch 1 and 32.
        case embeddings
    }

    /// The reference rows' names: llama-bench in the speed table, llama-batched-bench in the throughput table.
    static let speedReference = "llama-bench", throughputReference = "llama-batched-bench"

    // MARK: What and where

    var name: String
    var workload: Workload
    /// The streams or conversations run at once; in `embeddings`, the inputs of one call.
    var concurrency = 1
    /// In agent mode: which conversation (from 1), and which of its iterations (from 1).
    var conversation: Int?
    var iteration: Int?
    /// In a cache workload: which of its phases.
    var phase: String?

    // MARK: Figures

    /// Min, median and max over the measured rounds (over every request, for a cache workload).
    var startupMs: Spread?
    var ttftMs: Spread?
    /// TTFT minus the engine's own prompt time.
    var overheadMs: Spread?
    var prefillTokensPerSecond: Spread?
    /// Host-seen; with N streams at once, their aggregate (N × generated tokens over the decode phase).
    var decodeTokensPerSecond: Spread?
    /// With N streams at once: each stream's own decode speed, over every stream of every round.
    var streamDecodeTokensPerSecond: Spread?
    /// The decode speed the engine reports about itself.
    var engineDecodeTokensPerSecond: Spread?
    /// From the first request to the last stream's end.
    var wallMs: Spread?
    /// Each measured round's figure, in order: per-round ratios come from these.
    var prefillByRound: [Double]?
    var decodeByRound: [Double]?
    /// Medians over the reference's medians, and the quartiles of the per-round ratios.
    var prefillRatio: Double?
    var decodeRatio: Double?
    var prefillRatioRounds: Quartiles?
    var decodeRatioRounds: Quartiles?
    /// A cache workload's TTFT over that of the row with the feature off, and of llama-server's row, in the same phase.
    var ttftVsOff: Double?
    var ttftVsServer: Double?
    /// A speculation workload's decode speed over that of Loopl without drafting, of llama-server
    /// drafting, and of llama-server drafting with this row's `q8_0` keys.
    var decodeVsOff: Double?
    var decodeVsServer: Double?
    var decodeVsServerSameKeys: Double?
    /// Over every stream of every round.
    var ttftP50Ms: Double?
    var ttftP95Ms: Double?
    var interTokenP95Ms: Double?
    /// In long-arrival: the running streams' gaps between tokens (p50, p99, largest) over every
    /// stream of every round, the arriving prompt's TTFT alone on the model, and its TTFT and the
    /// time until all are done (``wallMs``) over llama-server's row's.
    var interTokenP50Ms: Double?
    var interTokenP99Ms: Double?
    var interTokenMaxMs: Double?
    var ttftAloneMs: Spread?
    var wallVsServer: Double?
    /// In embeddings: inputs embedded per second, and the median over llama-server's at the same batch.
    var inputsPerSecond: Spread?
    var inputsVsServer: Double?
    /// Token counts: of a stream's prompt, what the cache held of it, what was evaluated, what was
    /// new since the previous iteration, and what was generated.
    var promptTokens: Int?
    var cachedPromptTokens: Int?
    var evaluatedTokens: Int?
    var newTokens: Int?
    var generatedTokens: Int?
    /// Speculative decoding: the tokens drafted, and those of them accepted, over the measured rounds.
    var draftedTokens: Int?
    var acceptedDraftTokens: Int?
    /// The largest resident memory seen, of this process and of its children.
    var hostRSSMiB: Double?
    var childRSSMiB: Double?

    init(name: String, workload: Workload, concurrency: Int = 1) {
        (self.name, self.workload, self.concurrency) = (name, workload, concurrency)
    }

    /// True for llama-bench's and llama-batched-bench's rows, which the others are measured against.
    var isReference: Bool { name == Self.speedReference || name == Self.throughputReference }
}
