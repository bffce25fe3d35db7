import Loopl
@testable import LooplBench
import Testing

/// The arithmetic of `loopl bench --workload long-arrival`, on timings the tests write.
@Suite struct LongArrivalBenchTests {
    static func stream(_ events: [Double], start: Double = 0, end: Double? = nil, prompt: Int = 20) -> StreamTiming {
        StreamTiming(startMs: start, eventMs: events, endMs: end ?? (events.last ?? start) + 1, generatedTokens: events.count,
                     promptTokens: prompt, cachedPromptTokens: 0)
    }

    /// Two streams, one of which waits 300 ms for a token while the prompt arrives at 25 ms and
    /// has its first token at 400 ms.
    static let round = ArrivalRound(streams: [stream([10, 20, 30, 40, 50]), stream([12, 22, 322, 332, 342], end: 350)],
                                    arrival: stream([400, 410], start: 25, end: 420, prompt: 3000), aloneTTFTMs: 200)

    @Test func aRoundGivesTheRunningStreamsGapsAndTheTimeUntilAllAreDone() {
        #expect(Self.round.gaps == [10, 10, 10, 10, 10, 300, 10, 10])
        #expect(Self.round.allDoneMs == 420, "from the first request (0) to the arrival's end")
        #expect(Self.round.arrival.ttftMs == 375)
    }

    @Test func aRowPoolsTheGapsOfEveryRoundAndTakesMediansOfTheRest() throws {
        var second = Self.round
        second.streams[1] = Self.stream([12, 22, 32, 532, 542])
        second.arrival = Self.stream([600], start: 25, end: 700, prompt: 3000)
        second.aloneTTFTMs = 300
        let row = try #require(BenchRow(longArrival: "loopl", concurrency: 2, rounds: [Self.round, second]))
        #expect(row.workload == .longArrival && row.concurrency == 2)
        #expect(row.interTokenMaxMs == 500)
        #expect(row.interTokenP50Ms == 10)
        // 16 gaps: fourteen of 10, then 300 and 500; p99 is at rank 15 × 0.99 = 14.85, from 300 to 500.
        #expect(abs((row.interTokenP99Ms ?? 0) - (300 + 0.85 * 200)) < 1e-9)
        #expect(row.ttftMs == Spread([375, 575]) && row.ttftAloneMs == Spread([200, 300]) && row.wallMs == Spread([420, 700]))
        #expect(row.promptTokens == 3000 && row.generatedTokens == 5)
        #expect(BenchRow(longArrival: "loopl", concurrency: 2, rounds: []) == nil)
    }

    @Test func loopIsComparedWithLlamaServerAndJudgedByTheGoals() throws {
        var slow = Self.round
        slow.arrival = Self.stream([1000], start: 25, end: 1200, prompt: 3000)
        let lines = LongArrivalBench.lines(["loopl": [Self.round], "llama-server": [slow]], concurrency: 2)
        #expect(lines.map(\.name) == ["loopl", "llama-server"])
        #expect(abs((lines[0].ttftVsServer ?? 0) - 375.0 / 975) < 1e-9 && abs((lines[0].wallVsServer ?? 0) - 420.0 / 1200) < 1e-9)
        #expect(lines[1].ttftVsServer == nil)
        var report = BenchReport(model: "m", cores: 2, llamaCppVersion: "v", threads: 2, promptTokens: 0, maxTokens: 5, runs: 1, warmup: 0)
        report.rows = lines
        let goals = Dictionary(uniqueKeysWithValues: BenchGoal.goals(for: report).map { ($0.name, $0) })
        #expect(goals.keys.sorted() == ["loopl long arrival: all done vs llama-server", "loopl long arrival: arrival TTFT vs llama-server",
                                        "loopl long arrival: running streams' largest gap", "loopl long arrival: running streams' p99 gap"])
        #expect(goals["loopl long arrival: running streams' largest gap"].map { $0.measured == 300 && $0.goal == 250 && !$0.met } == true)
        #expect(goals["loopl long arrival: all done vs llama-server"].map { $0.goal == 1.1 && $0.met } == true)
        #expect(goals["loopl long arrival: arrival TTFT vs llama-server"].map { $0.goal == 1.5 && $0.met } == true)
        let text = LongArrivalBench(rows: [], streams: 2, arrivalTokens: 3000, maxTokens: 5, runs: 1, warmup: 0).table(lines)
        #expect(text.contains("0.38x") && text.contains("300.0"), "\(text)")
    }
}
