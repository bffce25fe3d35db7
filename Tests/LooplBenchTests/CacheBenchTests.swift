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

    static let table = CacheBenchTable(title: "t", workload: .sharedPrefix, rows: ["on", "off", "server"], phases: ["p", "q"], off: "off", server: "server")

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
        #expect(lines.map { "\($0.name)/\($0.phase ?? "")" } == ["on/p", "off/p", "server/p", "on/q", "off/q", "server/q"])
        let on = try #require(lines.first { $0.name == "on" && $0.phase == "p" })
        #expect(on.ttftMs?.median == 25 && on.promptTokens == 200 && on.evaluatedTokens == 25 && on.decodeTokensPerSecond?.median == 25, "\(on)")
        #expect(on.ttftVsOff == 0.25 && on.ttftVsServer == 0.5 && on.workload == .sharedPrefix, "\(on)")
        let later = try #require(lines.first { $0.name == "on" && $0.phase == "q" })
        #expect(later.ttftVsOff == 0.5 && later.ttftVsServer == 0.25, "\(later)")
        let off = try #require(lines.first { $0.name == "off" && $0.phase == "p" })
        #expect(off.ttftVsOff == 1 && off.ttftVsServer == 2 && off.evaluatedTokens == 200, "\(off)")
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
        let shared = try #require(lines.first { $0.name == SharedPrefixBench.shared && $0.phase == "together" })
        #expect(shared.ttftVsOff == shared.ttftMs.map { $0.median / offTTFT } && shared.ttftVsServer == shared.ttftMs.map { $0.median / serverTTFT })
    }

    /// Every row opens a model for each of its three turns, the third the conversation's next
    /// turn after the second's answer; each round is paired by phase, and the speed-up line
    /// divides the second turn's TTFT by the first's and gives the loads' time.
    @Test func promptCacheRoundsRunThreeTurnsOnThreeLoads() async throws {
        let opened = Mutex(0)
        let asked = Mutex<[[Message]]>([])
        let rows = PromptCacheBench.table.rows.map { name in
            PromptCacheBench.Row(name: name) { messages, options in
                try await PromptCacheBench.Loads { () async throws -> ScriptedModel in
                    opened.withLock { $0 += 1 }
                    return ScriptedModel.conformant()
                } turn: { model, messages in
                    asked.withLock { $0.append(messages) }
                    return try await CacheSample.measure(model, messages, tools: [], options: options)
                }.run(messages)
            }
        }
        let samples = try await PromptCacheBench(rows: rows, runs: 3, warmup: 1, maxTokens: 4).rounds({ _ in })
        #expect(opened.withLock { $0 } == 3 * 4 * 3)
        for name in PromptCacheBench.table.rows {
            #expect(PromptCacheBench.table.phases.allSatisfy { samples[name]?[$0]?.map(\.count) == [1, 1, 1] }, "\(name)")
            #expect(samples[name]?.values.allSatisfy { $0.allSatisfy { $0.allSatisfy { $0.loadMs != nil } } } == true)
        }
        let turns = asked.withLock { Array($0.prefix(3)) }
        let second = try #require(samples[PromptCacheBench.table.rows[0]]?["second"]?.first?.first)
        #expect(turns[0] == turns[1] && turns[2] == PromptCacheBench.next(turns[1], after: second) && turns[2].count == turns[1].count + 2)
        var crafted: CacheBenchTable.Samples = [PromptCacheBench.cached: ["first": [[Self.sample(400)]], "second": [[Self.sample(100)]]]]
        #expect(PromptCacheBench.speedups(crafted) == "\(PromptCacheBench.cached): the second load's TTFT is 0.25x of the first's\n")
        crafted[PromptCacheBench.cached]?["next"] = [[CacheSample(ttftMs: 50, promptTokens: 1, cachedPromptTokens: 0, decodeTokensPerSecond: 1,
                                                                   text: "", loadMs: 120)]]
        #expect(PromptCacheBench.speedups(crafted).hasSuffix("; a load takes 120 ms\n"))
    }

    /// A workload's rows are the report's rows: the speculation rows divide each median by Loopl
    /// without drafting's and by each llama-server row's, and the rows of both kinds of workload
    /// come back from the report's JSON as they went in.
    @Test func workloadRowsAreReportRows() throws {
        // Six rows (SpeculationBench.rows), two rounds each: row i decodes at 10 × (i + 1) tok/s.
        let samples = (0..<6).map { index in
            (0..<2).map { round in
                SpeculationBench.Sample(tokensPerSecond: Double(10 * (index + 1) + round), drafted: 8, accepted: index, text: "t")
            }
        }
        let rows = SpeculationBench.results(samples, workload: .free, conversations: 2)
        #expect(rows.map(\.name) == SpeculationBench.rows && rows.allSatisfy { $0.workload == .free && $0.concurrency == 2 })
        let drafting = try #require(rows.first)
        #expect(drafting.decodeTokensPerSecond?.median == 10.5 && drafting.decodeByRound == [10, 11])
        #expect(drafting.decodeVsOff == 10.5 / 20.5 && drafting.decodeVsServer == 10.5 / 40.5 && drafting.decodeVsServerSameKeys == 10.5 / 50.5)
        #expect(rows[2].draftedTokens == 16 && rows[2].acceptedDraftTokens == 4)
        #expect(SpeculationBench.table(samples, workload: .free, conversations: 2).contains("0.51x"))

        let cache: CacheBenchTable.Samples = ["on": ["p": [[Self.sample(10)]]], "off": ["p": [[Self.sample(20)]]]]
        var report = BenchReport(model: "m.gguf", cores: 2, llamaCppVersion: "test", threads: 2, promptTokens: 8, maxTokens: 8,
                                 runs: 2, warmup: 0)
        report.rows = rows + Self.table.lines(cache)
        let back = try BenchReport(json: JSONValue(parsing: report.json.jsonText(style: .python)))
        #expect(back == report && back.rows.count == 8)
        #expect(back.rows.last.map { $0.phase == "p" && $0.workload == .sharedPrefix && $0.ttftVsOff == 1 } == true)
    }
}
