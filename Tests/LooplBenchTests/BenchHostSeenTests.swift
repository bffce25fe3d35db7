import Loopl
@testable import LooplBench
import Testing

/// `loopl bench` reads speeds as the host sees them, keeps the engine's own beside them, and
/// refuses a cache count that cannot be true.
@Suite struct BenchHostSeenTests {
    /// A stream whose events reach the host `gapMs` apart, the first `firstMs` after the call.
    static func stream(tokens: Int, firstMs: Double, gapMs: Double, prompt: Int = 40, cached: Int = 0) -> StreamTiming {
        let events = (0..<tokens).map { firstMs + Double($0) * gapMs }
        return StreamTiming(startMs: 0, eventMs: events, endMs: (events.last ?? firstMs) + 1, generatedTokens: tokens,
                            promptTokens: prompt, cachedPromptTokens: cached)
    }

    /// A transport that delivers tokens at half the engine's rate prints half the rate: decode is
    /// timed from the events' arrivals, and the engine's claim is a separate column.
    @Test func decodeIsTimedFromEventArrivals() throws {
        let prefill = Self.stream(tokens: 1, firstMs: 2000, gapMs: 0, prompt: 503, cached: 3)
        let decode = Self.stream(tokens: 129, firstMs: 100, gapMs: 20)  // 50 tokens a second at the host
        let sample = BenchSample(startupMs: 150, prefill: prefill, promptEvalMs: 1990, decode: decode, engineDecode: 100,
                                 hostRSSMiB: 1, childRSSMiB: 0)
        #expect(abs(sample.decodeTokensPerSecond - 50) < 1e-9, "\(sample.decodeTokensPerSecond)")
        #expect(sample.engineDecodeTokensPerSecond == 100)
        #expect(sample.ttftMs == 2000 && sample.overheadMs == 10)
        #expect(abs(sample.prefillTokensPerSecond - 250) < 1e-9)  // 500 evaluated in 2 s
        var report = BenchTests.sample
        report.rows[1].engineDecodeTokensPerSecond = Spread([100, 101, 102])
        let table = report.table
        #expect(table.contains("engine t/s"), "\(table)")
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("server ") && $0.contains("86.5") && $0.contains("101.0") }, "\(table)")
        let back = try BenchReport(json: JSONValue(parsing: report.json.jsonText(style: .python)))
        #expect(back.backends[1].engineDecodeTokensPerSecond == Spread([100, 101, 102]))
        #expect(back.backends[0].engineDecodeTokensPerSecond == nil)
    }

    /// An agent turn that evaluated nothing is a reporting error, not a perfect cache.
    @Test func agentTurnEvaluatingNothingIsAnError() throws {
        #expect(try Bench.agentCounts(Metrics(promptTokens: 298, cachedPromptTokens: 297), backend: "llama") == (298, 297))
        #expect(throws: LooplError.self) { try Bench.agentCounts(Metrics(promptTokens: 298, cachedPromptTokens: 298), backend: "llama") }
        #expect(throws: LooplError.self) { try Bench.agentCounts(Metrics(promptTokens: 298, cachedPromptTokens: 300), backend: "llama") }
    }

    /// The agent goal is unclamped, and a later iteration's TTFT must bear its cache count out.
    @Test func agentGoalIsUnclampedAndCrossCheckedByTTFT() {
        var report = BenchTests.sample
        report.rows = [.agentStep("llama", iteration: 1, prompt: 239, cached: 0, previousPrompt: 0, ttftMs: Spread([900])),
                       .agentStep("llama", iteration: 2, prompt: 298, cached: 249, previousPrompt: 239, ttftMs: Spread([250]))]
        func goal(_ name: String) -> BenchGoal? { BenchGoal.goals(for: report).first { $0.name == "llama agent: " + name } }
        #expect(goal("evaluated beyond the new tokens")?.measured == -10)  // 49 evaluated for 59 new: shown as it is
        #expect(goal("later TTFT vs the first").map { abs($0.measured - 250.0 / 900) < 1e-9 && $0.met } == true)
        report.rows[1].ttftMs = Spread([880])  // the cache count says 49 evaluated, the time says the whole prompt
        #expect(goal("evaluated beyond the new tokens")?.met == true)
        #expect(goal("later TTFT vs the first")?.met == false)
    }
}

/// The llama-bench reference runs with the backends' token counts and the in-process engine's settings.
@Suite struct BenchReferenceTests {
    @Test func llamaBenchGetsTheBackendsCountsAndSettings() {
        let settings = LlamaBenchReference.Settings(section: nil)
        #expect(settings == .init(batch: 516, ubatch: 516, flashAttention: "auto"))
        let lines = LlamaBenchReference.arguments(model: "m.gguf", threads: 2, prompt: 503, generate: 128, depth: 38, settings: settings)
        let common = ["-m", "m.gguf", "-t", "2", "-r", "1", "-o", "json", "-b", "516", "-ub", "516", "-fa", "auto"]
        #expect(lines.prefill == common + ["-p", "503", "-n", "0"])
        #expect(lines.decode == common + ["-p", "0", "-n", "128", "-d", "38"])
        #expect(LlamaBenchReference.Settings(section: ["kind": "llama", "batchSize": 256, "parallel": 1]).batch == 257)
        #expect(LlamaBenchReference.Settings(section: ["kind": "llama", "flashAttention": "off"]).flashAttention == "off")
    }
}

extension LlamaBenchReference.Settings {
    init(batch: Int, ubatch: Int, flashAttention: String) {
        self.init(section: nil)
        (self.batch, self.ubatch, self.flashAttention) = (batch, ubatch, flashAttention)
    }
}
