/// One round of `loopl bench --workload long-arrival` on one row, in milliseconds from the
/// round's start: N streams decoding, a long prompt that arrived once each had its first token,
/// and that prompt's TTFT alone on the same model.
struct ArrivalRound: Sendable, Equatable {
    /// The streams that were decoding when the long prompt arrived.
    var streams: [StreamTiming]
    /// The long prompt's request.
    var arrival: StreamTiming
    /// The same length of prompt's TTFT with nothing else running.
    var aloneTTFTMs: Double

    /// The gaps between consecutive tokens of every running stream.
    var gaps: [Double] { streams.flatMap(\.interTokenMs) }

    /// From the first request to the end of the last of the N + 1.
    var allDoneMs: Double { ConcurrentRound(streams: streams + [arrival]).wallMs }
}

extension BenchRow {
    /// A row of `--workload long-arrival` from its measured rounds: the gaps over every running
    /// stream of every round, the medians over rounds of the TTFTs and of the time until all are
    /// done; nil without a round.
    init?(longArrival name: String, concurrency: Int, rounds: [ArrivalRound]) {
        let gaps = rounds.flatMap(\.gaps)
        guard let ttft = Spread(rounds.compactMap(\.arrival.ttftMs)), let alone = Spread(rounds.map(\.aloneTTFTMs)),
              let done = Spread(rounds.map(\.allDoneMs)) else { return nil }
        self.init(name: name, workload: .longArrival, concurrency: concurrency)
        (ttftMs, ttftAloneMs, wallMs) = (ttft, alone, done)
        (interTokenP50Ms, interTokenP99Ms, interTokenMaxMs) = (Quartiles.percentile(gaps, 50), Quartiles.percentile(gaps, 99), gaps.max())
        promptTokens = rounds.map(\.arrival.promptTokens).max()
        generatedTokens = rounds.flatMap(\.streams).map(\.generatedTokens).max()
    }

    /// This row with its arrival's TTFT and its time until all are done over `server`'s medians.
    func compared(withServer server: BenchRow) -> BenchRow {
        var row = self
        func ratio(_ mine: Spread?, _ theirs: Spread?) -> Double? {
            guard let mine, let theirs, theirs.median > 0 else { return nil }
            return mine.median / theirs.median
        }
        (row.ttftVsServer, row.wallVsServer) = (ratio(ttftMs, server.ttftMs), ratio(wallMs, server.wallMs))
        return row
    }
}
