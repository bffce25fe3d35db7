import Loopl

/// One backend (or llama-batched-bench) at one concurrency in `loopl bench --concurrency`: N
/// streams started together on one model, over the measured rounds.
struct ThroughputRow: Sendable, Equatable {
    /// The name of the reference rows' backend.
    static let reference = "llama-batched-bench"

    var backend: String
    /// N: the streams started together.
    var concurrency: Int
    /// Per stream: the prompt's tokens (the most of the N) and the tokens generated.
    var promptTokens: Int
    var generatedTokens: Int
    /// N × generated tokens over the decode phase (S_TG), in tokens/s (see ``ConcurrentRound``).
    var aggregateDecode: Spread
    /// ``aggregateDecode`` of each measured round, in order: the per-round ratios come from these.
    var byRound: [Double]
    /// Each stream's own decode speed, over every stream of every round.
    var streamDecode: Spread?
    /// Time to first token and between tokens, over every stream of every round.
    var ttftP50Ms: Double?
    var ttftP95Ms: Double?
    var interTokenP95Ms: Double?
    /// From the first request to the last stream's end.
    var wallMs: Spread
    /// The median aggregate over llama-batched-bench's at the same N, and the quartiles of the
    /// per-round ratios; nil without the reference (and on the reference rows).
    var decodeRatio: Double?
    var decodeRatioRounds: Quartiles?

    var json: JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        return ["backend": .string(backend), "concurrency": .integer(concurrency), "promptTokens": .integer(promptTokens),
                "generatedTokens": .integer(generatedTokens), "aggregateDecode": aggregateDecode.json,
                "byRound": .array(byRound.map(JSONValue.double)), "streamDecode": streamDecode?.json ?? .null,
                "ttftP50Ms": number(ttftP50Ms), "ttftP95Ms": number(ttftP95Ms), "interTokenP95Ms": number(interTokenP95Ms),
                "wallMs": wallMs.json, "decodeRatio": number(decodeRatio), "decodeRatioRounds": decodeRatioRounds?.json ?? .null]
    }

    init(backend: String, concurrency: Int, promptTokens: Int, generatedTokens: Int, aggregateDecode: Spread, byRound: [Double],
         streamDecode: Spread?, ttftP50Ms: Double?, ttftP95Ms: Double?, interTokenP95Ms: Double?, wallMs: Spread,
         decodeRatio: Double? = nil, decodeRatioRounds: Quartiles? = nil) {
        (self.backend, self.concurrency, self.promptTokens, self.generatedTokens) = (backend, concurrency, promptTokens, generatedTokens)
        (self.aggregateDecode, self.byRound, self.streamDecode) = (aggregateDecode, byRound, streamDecode)
        (self.ttftP50Ms, self.ttftP95Ms, self.interTokenP95Ms, self.wallMs) = (ttftP50Ms, ttftP95Ms, interTokenP95Ms, wallMs)
        (self.decodeRatio, self.decodeRatioRounds) = (decodeRatio, decodeRatioRounds)
    }

    /// A backend's row from its measured rounds at one concurrency; nil when no round gave an aggregate.
    init?(backend: String, concurrency: Int, rounds: [ConcurrentRound]) {
        let byRound = rounds.compactMap(\.aggregateDecode)
        let streams = rounds.flatMap(\.streams)
        guard byRound.count == rounds.count, let aggregate = Spread(byRound), let wall = Spread(rounds.map(\.wallMs)) else { return nil }
        let ttfts = streams.compactMap(\.ttftMs)
        self.init(backend: backend, concurrency: concurrency, promptTokens: streams.map(\.promptTokens).max() ?? 0,
                  generatedTokens: streams.map(\.generatedTokens).max() ?? 0, aggregateDecode: aggregate, byRound: byRound,
                  streamDecode: Spread(streams.compactMap(\.decodeTokensPerSecond)),
                  ttftP50Ms: Quartiles.percentile(ttfts, 50), ttftP95Ms: Quartiles.percentile(ttfts, 95),
                  interTokenP95Ms: Quartiles.percentile(streams.flatMap(\.interTokenMs), 95), wallMs: wall)
    }

    /// The reference row at one concurrency from llama-batched-bench's rounds: every sequence
    /// has its first token when the prompts' evaluation ends and then one token per step.
    init?(reference results: [BatchedBenchReference.Result]) {
        guard let first = results.first, let aggregate = Spread(results.map(\.decodeTokensPerSecond)),
              let wall = Spread(results.map { ($0.promptSeconds + $0.generationSeconds) * 1000 }) else { return nil }
        let ttfts = results.map { $0.promptSeconds * 1000 }
        let steps = results.map { $0.generationSeconds * 1000 / Double(max($0.generated, 1)) }
        self.init(backend: Self.reference, concurrency: first.sequences, promptTokens: first.prompt, generatedTokens: first.generated,
                  aggregateDecode: aggregate, byRound: results.map(\.decodeTokensPerSecond),
                  streamDecode: Spread(results.map { $0.decodeTokensPerSecond / Double(max($0.sequences, 1)) }),
                  ttftP50Ms: Quartiles.percentile(ttfts, 50), ttftP95Ms: Quartiles.percentile(ttfts, 95),
                  interTokenP95Ms: Quartiles.percentile(steps, 95), wallMs: wall)
    }

    init?(json: JSONValue) {
        guard let backend = json["backend"]?.stringValue, let concurrency = json["concurrency"]?.intValue,
              let prompt = json["promptTokens"]?.intValue, let generated = json["generatedTokens"]?.intValue,
              let aggregate = Spread(json: json["aggregateDecode"]), let wall = Spread(json: json["wallMs"]),
              let byRound = json["byRound"]?.arrayValue?.compactMap(\.doubleValue) else { return nil }
        self.init(backend: backend, concurrency: concurrency, promptTokens: prompt, generatedTokens: generated, aggregateDecode: aggregate,
                  byRound: byRound, streamDecode: Spread(json: json["streamDecode"]), ttftP50Ms: json["ttftP50Ms"]?.doubleValue,
                  ttftP95Ms: json["ttftP95Ms"]?.doubleValue, interTokenP95Ms: json["interTokenP95Ms"]?.doubleValue, wallMs: wall,
                  decodeRatio: json["decodeRatio"]?.doubleValue, decodeRatioRounds: Quartiles(json: json["decodeRatioRounds"]))
    }
}
