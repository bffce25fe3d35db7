import Loopl

/// One measured run of one backend.
struct BenchSample: Sendable {
    /// Load or spawn until the backend is ready.
    var startupMs: Double
    /// Request to the first generated token, as the host sees it, on the long prompt.
    var ttftMs: Double
    /// The part of the TTFT that is not the engine evaluating the prompt, when the engine reports its time.
    var overheadMs: Double?
    /// Prompt tokens evaluated per second of TTFT.
    var prefillTokensPerSecond: Double
    /// Tokens generated per second after the first, timed from the events' arrivals at the host.
    var decodeTokensPerSecond: Double
    /// The decode speed that the engine reports about itself (its final metrics), when it does.
    var engineDecodeTokensPerSecond: Double? = nil
    /// The host's resident memory and its children's, in MiB, with the model loaded.
    var hostRSSMiB: Double
    var childRSSMiB: Double
}

extension BenchSample {
    /// A run's sample from its prefill and its decode as the host saw them: prefill is the prompt
    /// tokens evaluated over the host-seen TTFT, decode the decode stream's tokens after the first
    /// over the time from its first event to its last; the engine's own decode figure is kept beside.
    init(startupMs: Double, prefill: StreamTiming, promptEvalMs: Double?, decode: StreamTiming, engineDecode: Double?,
         hostRSSMiB: Double, childRSSMiB: Double) {
        let ttft = prefill.ttftMs ?? (prefill.endMs - prefill.startMs)
        let evaluated = prefill.promptTokens - prefill.cachedPromptTokens
        self.init(startupMs: startupMs, ttftMs: ttft, overheadMs: promptEvalMs.map { ttft - $0 },
                  prefillTokensPerSecond: Double(evaluated) / (ttft / 1000), decodeTokensPerSecond: decode.decodeTokensPerSecond ?? 0,
                  engineDecodeTokensPerSecond: engineDecode, hostRSSMiB: hostRSSMiB, childRSSMiB: childRSSMiB)
    }
}

/// Min, median and max of a series.
struct Spread: Sendable, Equatable, Codable {
    let min: Double, median: Double, max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        min = sorted[0]
        max = sorted[sorted.count - 1]
        median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
