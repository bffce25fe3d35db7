import Foundation
import Loopl
@testable import LooplBench
import Testing

/// The arithmetic of `loopl bench`: quartiles and percentiles, the aggregate decode speed of
/// concurrent streams, llama-batched-bench's output, and the goals read off them.
@Suite struct BenchArithmeticTests {
    /// Like numpy's default percentile: linear between the nearest ranks.
    @Test func quartilesInterpolateBetweenRanks() throws {
        let four = try #require(Quartiles([4, 1, 3, 2]))
        #expect(four.q1 == 1.75 && four.median == 2.5 && four.q3 == 3.25 && four.iqr == 1.5)
        let one = try #require(Quartiles([7]))
        #expect(one.q1 == 7 && one.q3 == 7 && one.iqr == 0)
        #expect(Quartiles([]) == nil)
        let twenty = (1...20).map(Double.init)
        #expect(abs((Quartiles.percentile(twenty, 95) ?? 0) - 19.05) < 1e-9)
        #expect(Quartiles.percentile(twenty, 50) == 10.5)
        #expect(Quartiles.percentile(twenty, 100) == 20 && Quartiles.percentile(twenty, 0) == 1)
        #expect(Quartiles.percentile([], 95) == nil)
    }

    /// Per-round ratios pair the rounds in order; a round without a denominator is left out.
    @Test func ratiosArePairedRoundByRound() throws {
        let ratios = try #require(Quartiles.ofRatios([90, 100, 80, 50], [100, 100, 100, 0]))
        #expect(ratios == Quartiles([0.9, 1.0, 0.8]))
        #expect(abs(ratios.iqr - 0.1) < 1e-12)
        #expect(Quartiles.ofRatios([], [1]) == nil)
    }

    static func stream(start: Double = 0, first: Double, every step: Double, tokens: Int, events: Int? = nil) -> StreamTiming {
        let count = events ?? tokens
        let times = (0..<count).map { first + Double($0) * step * Double(tokens - 1) / Double(max(count - 1, 1)) }
        return StreamTiming(startMs: start, eventMs: times, endMs: (times.last ?? first) + 1, generatedTokens: tokens,
                            promptTokens: 40, cachedPromptTokens: 0)
    }

    /// One stream: its own decode speed, tokens after the first over the time from first to last.
    @Test func oneStreamIsItsOwnDecodeSpeed() throws {
        let round = ConcurrentRound(streams: [Self.stream(start: 5, first: 100, every: 10, tokens: 11)])
        #expect(round.decodeStartMs == 100 && round.decodeEndMs == 200)
        #expect(try #require(round.aggregateDecode) == 100)  // 10 tokens in 100 ms
        #expect(round.streams[0].decodeTokensPerSecond == 100)
        #expect(round.streams[0].ttftMs == 95)
        #expect(round.streams[0].interTokenMs == Array(repeating: 10, count: 10))
        #expect(round.wallMs == 196)
    }

    /// Four streams decoding in lockstep after staggered prompts: the window opens at the last
    /// first token; tokens before it (other streams decoding while a prompt is evaluated) do not count.
    @Test func theDecodePhaseOpensAtTheLastFirstToken() throws {
        let streams = (0..<4).map { Self.stream(first: 100 + Double($0) * 20, every: 20, tokens: 9) }
        let round = ConcurrentRound(streams: streams)
        // First tokens at 100, 120, 140, 160; last tokens at 260, 280, 300, 320.
        #expect(round.decodeStartMs == 160 && round.decodeEndMs == 320)
        // After 160: stream 0 has 5 tokens (180...260), stream 1 6, stream 2 7, stream 3 8: 26 in 160 ms.
        #expect(abs(try #require(round.aggregateDecode) - 26 / 0.16) < 1e-9)
        #expect(round.streams.map(\.decodeTokensPerSecond) == Array(repeating: 50, count: 4))
    }

    /// A backend that serves one request at a time: only the last stream decodes in the window,
    /// so the aggregate is one stream's speed, not N times it.
    @Test func streamsServedOneAfterAnotherAggregateToOneStream() throws {
        let streams = (0..<4).map { Self.stream(first: 10 + Double($0) * 200, every: 10, tokens: 17) }
        let round = ConcurrentRound(streams: streams)
        #expect(try #require(round.aggregateDecode) == 100)
        #expect(BenchRow(backend: "serial", concurrency: 4, rounds: [round])?.decodeTokensPerSecond?.median == 100)
    }

    /// A backend that merges tokens into fewer events: each event counts for its share.
    @Test func mergedEventsCountTheirShareOfTheTokens() throws {
        let stream = Self.stream(first: 0, every: 10, tokens: 21, events: 11)  // two tokens an event, 0...200 ms
        #expect(abs(stream.tokens(after: 0) - 10.0 * 21 / 11) < 1e-12)
        #expect(stream.tokens(after: -1) == 21)
        #expect(ConcurrentRound(streams: [stream]).aggregateDecode.map { abs($0 - Double(10 * 21) / 11 / 0.2) < 1e-9 } == true)
    }

    /// No decode phase (one token a stream, or a stream without tokens): no aggregate, and no row.
    @Test func noDecodePhaseNoAggregate() {
        #expect(ConcurrentRound(streams: [Self.stream(first: 50, every: 10, tokens: 1)]).aggregateDecode == nil)
        let empty = StreamTiming(startMs: 0, eventMs: [], endMs: 10, generatedTokens: 0, promptTokens: 40, cachedPromptTokens: 0)
        let round = ConcurrentRound(streams: [Self.stream(first: 10, every: 10, tokens: 5), empty])
        #expect(round.aggregateDecode == nil)
        #expect(BenchRow(backend: "x", concurrency: 2, rounds: [round]) == nil)
        #expect(ConcurrentRound(streams: []).aggregateDecode == nil && ConcurrentRound(streams: []).wallMs == 0)
    }

    /// A row pools every stream of every round for TTFT and inter-token percentiles.
    @Test func rowsPoolStreamsForPercentiles() throws {
        let rounds = [ConcurrentRound(streams: [Self.stream(first: 100, every: 10, tokens: 11), Self.stream(first: 100, every: 10, tokens: 11)]),
                      ConcurrentRound(streams: [Self.stream(first: 300, every: 20, tokens: 11), Self.stream(first: 300, every: 20, tokens: 11)])]
        let row = try #require(BenchRow(backend: "llama", concurrency: 2, rounds: rounds))
        #expect(row.decodeByRound == [200, 100])
        #expect(row.decodeTokensPerSecond == Spread([200, 100]))
        #expect(row.ttftP50Ms == 200 && row.ttftP95Ms.map { abs($0 - 300) < 1e-9 } == true)
        #expect(row.interTokenP95Ms == 20)
        #expect(row.streamDecodeTokensPerSecond == Spread([100, 100, 50, 50]))
        #expect(row.promptTokens == 40 && row.generatedTokens == 11)
    }

    static var capturedSample: String {
        get throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Data/Bench/llama-batched-bench.jsonl")
            return try String(contentsOf: url, encoding: .utf8)
        }
    }

    /// Output captured from the pinned llama-batched-bench (`-npp 40 -ntg 16 -npl 1,2,4
    /// --output-format jsonl`, on a busy machine), with a log line and a Markdown row around it.
    @Test func batchedBenchOutputIsParsed() throws {
        let results = try BatchedBenchReference.parse(Self.capturedSample)
        #expect(results.map(\.sequences) == [1, 2, 4])
        #expect(results.allSatisfy { $0.prompt == 40 && $0.generated == 16 })
        #expect(results[1].decodeTokensPerSecond == 11.110683 && results[1].generationSeconds == 2.880111 && results[1].promptSeconds == 3.407823)
        // S_TG is N × TG over T_TG.
        for result in results {
            #expect(abs(Double(result.sequences * result.generated) / result.generationSeconds - result.decodeTokensPerSecond) < 1e-3)
        }
        let row = try #require(BenchRow(reference: [results[2]]))
        #expect(row.name == "llama-batched-bench" && row.concurrency == 4 && row.decodeTokensPerSecond?.median == 6.454239)
        #expect(row.ttftP50Ms.map { abs($0 - 4551.885) < 1e-6 } == true)
        #expect(row.streamDecodeTokensPerSecond?.median == 6.454239 / 4)
        #expect(throws: LooplError.self) { try BatchedBenchReference.parse(#"{"pp": 40, "speed_tg": 1}"#) }
        #expect(try BatchedBenchReference.parse("no results\n").isEmpty)
    }

    /// The reference gets every N at once, with a context that holds each sequence (split evenly).
    @Test func batchedBenchArguments() {
        let arguments = BatchedBenchReference.arguments(model: "m.gguf", threads: 2, prompt: 40, generate: 128, concurrency: [1, 2, 4, 8],
                                                        flashAttention: "off")
        func value(_ flag: String) -> String? { arguments.firstIndex(of: flag).map { arguments[$0 + 1] } }
        #expect(value("-npp") == "40" && value("-ntg") == "128" && value("-npl") == "1,2,4,8" && value("-t") == "2" && value("-fa") == "off")
        #expect(value("-c") == "2048" && value("--output-format") == "jsonl" && value("-m") == "m.gguf")
        #expect(BatchedBenchReference.arguments(model: "m", threads: 1, prompt: 300, generate: 128, concurrency: [3]).contains("1536"))
    }

    /// The agent conversations side by side: the same shape, their own numbers, right results.
    @Test func agentConversationVariantsDiffer() {
        let first = AgentConversation.iterations(variant: 0), second = AgentConversation.iterations(variant: 1)
        #expect(first.count == 4 && second.count == 4)
        #expect(first != second)
        #expect(first[3].last?.text == "163.666667")
        // (18*23 + 100) / 3 = 171.333333
        #expect(second[1].last?.text == "414" && second[3].last?.text == "171.333333")
        #expect(AgentConversation.iterations(variant: 2)[3].last?.text == "179")  // (19*23 + 100) / 3, a whole number
    }
}
