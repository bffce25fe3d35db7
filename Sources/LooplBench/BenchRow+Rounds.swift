/// The rows of the speed, throughput and agent tables, from what their rounds measured.
extension BenchRow {
    /// A backend's row in the speed table from its measured runs; nil without one.
    init?(backend: String, samples: [BenchSample]) {
        guard let startup = Spread(samples.map(\.startupMs)), let ttft = Spread(samples.map(\.ttftMs)),
              let prefill = Spread(samples.map(\.prefillTokensPerSecond)), let decode = Spread(samples.map(\.decodeTokensPerSecond)) else { return nil }
        self.init(name: backend, workload: .speed)
        (startupMs, ttftMs, overheadMs) = (startup, ttft, Spread(samples.compactMap(\.overheadMs)))
        (prefillTokensPerSecond, decodeTokensPerSecond) = (prefill, decode)
        (prefillByRound, decodeByRound) = (samples.map(\.prefillTokensPerSecond), samples.map(\.decodeTokensPerSecond))
        (hostRSSMiB, childRSSMiB) = (samples.map(\.hostRSSMiB).max() ?? 0, samples.map(\.childRSSMiB).max() ?? 0)
        engineDecodeTokensPerSecond = Spread(samples.compactMap(\.engineDecodeTokensPerSecond))
    }

    /// A backend's row at one concurrency in `loopl bench --concurrency`, from its measured rounds
    /// of N streams started together; nil when no round gave an aggregate.
    init?(backend: String, concurrency: Int, rounds: [ConcurrentRound]) {
        let byRound = rounds.compactMap(\.aggregateDecode)
        let streams = rounds.flatMap(\.streams)
        guard byRound.count == rounds.count, let aggregate = Spread(byRound), let wall = Spread(rounds.map(\.wallMs)) else { return nil }
        let ttfts = streams.compactMap(\.ttftMs)
        self.init(name: backend, workload: .throughput, concurrency: concurrency)
        (promptTokens, generatedTokens) = (streams.map(\.promptTokens).max() ?? 0, streams.map(\.generatedTokens).max() ?? 0)
        (decodeTokensPerSecond, decodeByRound, wallMs) = (aggregate, byRound, wall)
        streamDecodeTokensPerSecond = Spread(streams.compactMap(\.decodeTokensPerSecond))
        (ttftP50Ms, ttftP95Ms) = (Quartiles.percentile(ttfts, 50), Quartiles.percentile(ttfts, 95))
        interTokenP95Ms = Quartiles.percentile(streams.flatMap(\.interTokenMs), 95)
    }

    /// The reference row at one concurrency from llama-batched-bench's rounds: every sequence
    /// has its first token when the prompts' evaluation ends and then one token per step.
    init?(reference results: [BatchedBenchReference.Result]) {
        guard let first = results.first, let aggregate = Spread(results.map(\.decodeTokensPerSecond)),
              let wall = Spread(results.map { ($0.promptSeconds + $0.generationSeconds) * 1000 }) else { return nil }
        let ttfts = results.map { $0.promptSeconds * 1000 }
        let steps = results.map { $0.generationSeconds * 1000 / Double(max($0.generated, 1)) }
        self.init(name: Self.throughputReference, workload: .throughput, concurrency: first.sequences)
        (promptTokens, generatedTokens) = (first.prompt, first.generated)
        (decodeTokensPerSecond, decodeByRound, wallMs) = (aggregate, results.map(\.decodeTokensPerSecond), wall)
        streamDecodeTokensPerSecond = Spread(results.map { $0.decodeTokensPerSecond / Double(max($0.sequences, 1)) })
        (ttftP50Ms, ttftP95Ms) = (Quartiles.percentile(ttfts, 50), Quartiles.percentile(ttfts, 95))
        interTokenP95Ms = Quartiles.percentile(steps, 95)
    }

    /// This row with its prefill and decode ratios over `reference`'s, where both have the figure:
    /// the medians', and the quartiles of the per-round ratios.
    func compared(with reference: BenchRow) -> BenchRow {
        var row = self
        if let mine = prefillTokensPerSecond?.median, let theirs = reference.prefillTokensPerSecond?.median {
            row.prefillRatio = mine / theirs
            row.prefillRatioRounds = Quartiles.ofRatios(prefillByRound ?? [], reference.prefillByRound ?? [])
        }
        if let mine = decodeTokensPerSecond?.median, let theirs = reference.decodeTokensPerSecond?.median {
            row.decodeRatio = mine / theirs
            row.decodeRatioRounds = Quartiles.ofRatios(decodeByRound ?? [], reference.decodeByRound ?? [])
        }
        return row
    }

    /// An agent-mode row: one iteration of one conversation, its tokens new since the previous prompt.
    static func agentStep(_ name: String, concurrency: Int = 1, conversation: Int = 1, iteration: Int, prompt: Int, cached: Int,
                          previousPrompt: Int, ttftMs: Spread?) -> BenchRow {
        var row = BenchRow(name: name, workload: .agent, concurrency: concurrency)
        (row.conversation, row.iteration) = (conversation, iteration)
        (row.promptTokens, row.cachedPromptTokens, row.evaluatedTokens) = (prompt, cached, prompt - cached)
        (row.newTokens, row.ttftMs) = (prompt - previousPrompt, ttftMs)
        return row
    }
}
