import Loopl
@testable import LooplBench
import LooplTestKit
import Synchronization
import Testing

/// `loopl bench --workload shared-prefix|prompt-cache`: how the rounds run on each row and how
/// the table pairs each row with the row whose feature is off and with llama-server's, on
/// scripted backends and on samples made up for the purpose.
@Suite struct CacheBenchTests {
    static func sample(_ ttft: Double, prompt: Int = 100, cached: Int = 0, text: String = "a") -> CacheSample {
        CacheSample(ttftMs: ttft, promptTokens: prompt, cachedPromptTokens: cached, decodeTokensPerSecond: ttft, text: text)
    }

    static let table = CacheBenchTable(title: "t", rows: ["on", "off", "server"], phases: ["p", "q"], off: "off", server: "server")

    /// Each line's TTFT is the median over every request of every round, its evaluated tokens
    /// the median over rounds of each round's total, and its ratios divide by the other rows'
    /// TTFTs in the same phase.
    @Test func eachLineIsDividedByTheOffAndServerRowsOfItsOwnPhase() throws {
        let samples: CacheBenchTable.Samples = [
            "on": ["p": [[Self.sample(10, cached: 90), Self.sample(30, cached: 90)], [Self.sample(20, cached: 80), Self.sample(40, cached: 90)]],
                   "q": [[Self.sample(5)]]],
            "off": ["p": [[Self.sample(100), Self.sample(100)], [Self.sample(100), Self.sample(300)]], "q": [[Self.sample(10)]]],
            "server": ["p": [[Self.sample(50)], [Self.sample(50)]], "q": [[Self.sample(20)]]],
        ]
        let lines = Self.table.lines(samples)
        #expect(lines.map { "\($0.row)/\($0.phase)" } == ["on/p", "off/p", "server/p", "on/q", "off/q", "server/q"])
        let on = try #require(lines.first { $0.row == "on" && $0.phase == "p" })
        #expect(on.ttftMs == 25 && on.promptTokens == 200 && on.evaluatedTokens == 25 && on.decodeTokensPerSecond == 25, "\(on)")
        #expect(on.versusOff == 0.25 && on.versusServer == 0.5, "\(on)")
        let later = try #require(lines.first { $0.row == "on" && $0.phase == "q" })
        #expect(later.versusOff == 0.5 && later.versusServer == 0.25, "\(later)")
        let off = try #require(lines.first { $0.row == "off" && $0.phase == "p" })
        #expect(off.versusOff == 1 && off.versusServer == 2 && off.evaluatedTokens == 200, "\(off)")
    }

    @Test func aRowThatWroteOtherTextThanTheOffRowIsNamed() {
        let same: CacheBenchTable.Samples = ["on": ["p": [[Self.sample(1)]]], "off": ["p": [[Self.sample(2)]]]]
        #expect(Self.table.differing(same, compared: ["on"]).isEmpty)
        let other: CacheBenchTable.Samples = ["on": ["p": [[Self.sample(1, text: "b")]]], "off": ["p": [[Self.sample(2)]]]]
        #expect(Self.table.differing(other, compared: ["on"]) == ["on"])
        #expect(Self.table.text(other, sameTextRows: ["on"]).contains("DIFFERENT text from off: on"))
    }

    /// Every row gets, each round, 4 conversations at once and then 4 one after another, all with
    /// that round's system prompt (no other round's) and a question of their own.
    @Test func sharedPrefixRoundsStartFourTogetherThenFourAfter() async throws {
        let models = SharedPrefixBench.table.rows.map { _ in ScriptedModel.conformant(parallel: 4) }
        let rows = zip(SharedPrefixBench.table.rows, models).map { name, model in
            SharedPrefixBench.Row(name: name) { model }
        }
        let bench = SharedPrefixBench(rows: rows, runs: 2, warmup: 1, maxTokens: 4)
        let samples = try await bench.rounds(models, { _ in })
        for (name, model) in zip(SharedPrefixBench.table.rows, models) {
            #expect(samples[name]?["together"]?.map(\.count) == [4, 4] && samples[name]?["after"]?.map(\.count) == [4, 4], "\(name)")
            let requests = model.requests
            #expect(requests.count == 24, "\(name): \(requests.count) requests")
            for round in 0..<3 {
                let ofRound = requests[(8 * round)..<(8 * round + 8)]
                let systems = Set(ofRound.map { $0.messages.first?.text ?? "" })
                #expect(systems == [CacheWorkload.sharedPrefix.system(round: round + 1)],
                        "\(name) round \(round + 1) sent the system prompts of \(systems.map { String($0.prefix(10)) })")
                #expect(Set(ofRound.map { $0.messages.last?.text ?? "" }).count == 8)
                #expect(Set(ofRound.prefix(4).compactMap(\.options.conversation)).count == 4)
            }
        }
        let lines = SharedPrefixBench.table.lines(samples)
        let offTTFT = try #require(CacheBenchTable.ttft(samples[SharedPrefixBench.unshared]?["together"]))
        let serverTTFT = try #require(CacheBenchTable.ttft(samples[SharedPrefixBench.cacheRAM]?["together"]))
        let shared = try #require(lines.first { $0.row == SharedPrefixBench.shared && $0.phase == "together" })
        #expect(shared.versusOff == shared.ttftMs / offTTFT && shared.versusServer == shared.ttftMs / serverTTFT)
    }

    /// Every row opens a model for each of its two turns; each round is paired by phase, and the
    /// speed-up line divides the second turn's TTFT by the first's.
    @Test func promptCacheRoundsRunTwoTurnsOnTwoLoads() async throws {
        let opened = Mutex(0)
        let rows = PromptCacheBench.table.rows.map { name in
            PromptCacheBench.Row(name: name) { messages, options in
                try await PromptCacheBench.twice { () async throws -> ScriptedModel in
                    opened.withLock { $0 += 1 }
                    return ScriptedModel.conformant()
                } turn: { model, _ in
                    try await CacheSample.measure(model, messages, tools: [], options: options)
                }
            }
        }
        let samples = try await PromptCacheBench(rows: rows, runs: 3, warmup: 1, maxTokens: 4).rounds({ _ in })
        #expect(opened.withLock { $0 } == 3 * 4 * 2)
        for name in PromptCacheBench.table.rows {
            #expect(samples[name]?["first"]?.map(\.count) == [1, 1, 1] && samples[name]?["second"]?.map(\.count) == [1, 1, 1], "\(name)")
        }
        let crafted: CacheBenchTable.Samples = [PromptCacheBench.cached: ["first": [[Self.sample(400)]], "second": [[Self.sample(100)]]]]
        #expect(PromptCacheBench.speedups(crafted) == "\(PromptCacheBench.cached): the second load's TTFT is 0.25x of the first's\n")
    }
}
