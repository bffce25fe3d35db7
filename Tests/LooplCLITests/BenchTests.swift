import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Loopl
@testable import LooplCLI
import Testing

/// `loopl bench`: its plan, its JSON schema, its chart, and a real run of the three backends.
@Suite(.serialized) struct BenchTests {
    static func spread(_ median: Double) -> Spread {
        Spread([median * 0.9, median, median * 1.2])!
    }

    static var sample: BenchReport {
        var report = BenchReport(model: "m.gguf", cores: 2, llamaCppVersion: "0.3.36", threads: 2, promptTokens: 503,
                                 maxTokens: 128, runs: 5, warmup: 1)
        for (name, decode) in [("llama", 90.0), ("server", 86.5), ("a<b&\"c'", 10.0)] {
            report.backends.append(.init(backend: name, startupMs: spread(150), ttftMs: spread(2100), overheadMs: name == "llama" ? spread(1.5) : nil,
                                         prefillTokensPerSecond: spread(240), decodeTokensPerSecond: spread(decode),
                                         prefillRatio: 0.99, decodeRatio: decode / 95, hostRSSMiB: 240.5, childRSSMiB: 0))
        }
        report.reference = .init(prefillTokensPerSecond: spread(242), decodeTokensPerSecond: spread(95))
        report.agent = [.init(backend: "llama", iteration: 1, promptTokens: 239, cachedPromptTokens: 0, newTokens: 239, ttftMs: 900),
                        .init(backend: "llama", iteration: 2, promptTokens: 298, cachedPromptTokens: 239, newTokens: 59, ttftMs: 250.5)]
        return report
    }

    @Test func backendsAreInterleavedRoundByRound() {
        let plan = BenchPlan(backends: ["a", "b"], warmup: 1, runs: 2, reference: true)
        #expect(plan.steps.map(\.target) == [.backend("a"), .backend("b"), .reference, .backend("a"), .backend("b"), .reference,
                                             .backend("a"), .backend("b"), .reference])
        #expect(plan.steps.map(\.round) == [1, 1, 1, 2, 2, 2, 3, 3, 3])
        #expect(plan.steps.map(\.measured) == [false, false, false, true, true, true, true, true, true])
        #expect(BenchPlan(backends: ["a"], warmup: 0, runs: 2, reference: false).steps.map(\.target) == [.backend("a"), .backend("a")])
    }

    @Test func jsonRoundTripsThroughText() throws {
        let report = Self.sample
        let text = report.json.jsonText(style: .python)
        let back = try BenchReport(json: JSONValue(parsing: text))
        #expect(back == report)
        #expect(back.json["schemaVersion"] == .integer(BenchReport.schemaVersion))
        #expect(throws: LooplError.self) { try BenchReport(json: ["schemaVersion": 99]) }
    }

    @Test func chartIsWellFormedWithOneBarPerBackend() throws {
        let svg = BenchChart.svg(Self.sample)
        let parser = XMLParser(data: Data(svg.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map(String.init(describing:)) ?? "")")
        // Two panels (decode and TTFT), each with one bar per backend and the reference line.
        #expect(counter.classes["bar"] == 2 * Self.sample.backends.count)
        #expect(counter.classes["reference"] == 2)
        #expect(svg.contains("a&lt;b&amp;\"c&apos;"))
    }

    @Test func tableShowsRatiosBesideEachBackend() {
        let table = Self.sample.table
        #expect(table.contains("0.947x"))  // 90 / 95
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("llama-bench") && $0.contains("1.000x") })
        #expect(table.contains("evaluated"))
    }

    /// Each goal of docs/bench.md beside its figure; a miss is marked, and only a miss.
    @Test func goalsAreShownAndMissesMarked() {
        let goals = BenchGoal.goals(for: Self.sample)
        let byName = Dictionary(uniqueKeysWithValues: goals.map { ($0.name, $0) })
        #expect(byName["llama decode vs llama-bench"]?.met == false)  // 90 / 95 = 0.947x against 0.98x
        #expect(byName["llama prefill vs llama-bench"]?.met == true)  // 0.99x against 0.97x
        #expect(byName["llama TTFT overhead"]?.met == true)  // 1.5 ms against 3 ms
        #expect(byName["server decode vs llama"].map { abs($0.measured - 86.5 / 90) < 1e-9 && $0.met } == true)
        #expect(byName["a<b&\"c'decode vs llama"] == nil)
        #expect(byName["a<b&\"c' decode vs llama"]?.met == false)  // 10 / 90
        #expect(byName["llama agent: evaluated beyond the new tokens"]?.met == true)
        #expect(byName["server TTFT overhead"] == nil, "no engine time, no overhead goal")
        let table = BenchGoal.table(goals)
        let lines = table.split(separator: "\n").dropFirst()
        #expect(lines.count == goals.count)
        for (line, goal) in zip(lines, goals) {
            #expect(line.hasPrefix(goal.name) && line.hasSuffix(goal.met ? "  ok" : "  MISSED"), "\(line)")
        }
        #expect(table.contains("0.947x    >= 0.980x  MISSED"), "\(table)")
        #expect(table.contains("1.5 ms    <= 3.0 ms  ok"), "\(table)")
        var slow = Self.sample
        slow.agent[1].cachedPromptTokens = 0
        #expect(BenchGoal.goals(for: slow).first { $0.name == "llama agent: evaluated beyond the new tokens" }?.met == false)
        #expect(BenchGoal.table([]) == "")
    }

    @Test func promptAndPromptTokensExcludeEachOther() async {
        let result = await CapturedConsole.run(["bench", "--prompt", "hi", "--prompt-tokens", "20"])
        #expect(result.status == .usage)
    }

    /// One run of each backend with tiny token counts through the real binary: correctness only.
    @Test(.timeLimit(.minutes(10))) func realRunOfTheThreeBackends() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try ToolingCommandTests.loopl(["bench", "--backends", "llama,server,stdio", "--runs", "1", "--warmup", "0",
                                                    "--prompt-tokens", "32", "--max-tokens", "4", "--threads", "2",
                                                    "--json", directory + "/b.json", "--svg", directory + "/b.svg"])
        #expect(result.status == 0, "\(result.err)")
        let report = try BenchReport(json: JSONValue(parsing: String(contentsOfFile: directory + "/b.json", encoding: .utf8)))
        #expect(report.backends.map(\.backend) == ["llama", "server", "stdio"])
        for row in report.backends {
            #expect(row.decodeTokensPerSecond.median > 0 && row.prefillTokensPerSecond.median > 0, "\(row.backend)")
            #expect(row.overheadMs != nil, "\(row.backend) reports the engine's prompt time")
            #expect(row.hostRSSMiB > 0)
        }
        #expect(report.backends[0].childRSSMiB == 0 && report.backends[1].childRSSMiB > 0 && report.backends[2].childRSSMiB > 0)
        #expect(report.reference != nil)
        #expect(result.out.contains("llama-bench"))
        #expect(result.out.contains("llama decode vs llama-bench") && result.out.contains("stdio decode vs llama"), "\(result.out)")
        #expect(FileManager.default.fileExists(atPath: directory + "/b.svg"))

        let agent = try ToolingCommandTests.loopl(["bench", "--agent", "--backends", "llama,server,stdio", "--runs", "1", "--warmup", "0",
                                                   "--max-tokens", "2", "--json", directory + "/a.json"])
        #expect(agent.status == 0, "\(agent.err)")
        let steps = try BenchReport(json: JSONValue(parsing: String(contentsOfFile: directory + "/a.json", encoding: .utf8))).agent
        #expect(steps.count == 3 * AgentConversation.iterations.count)
        // After the first iteration every backend reuses its cache: it evaluates about the new tokens only.
        for step in steps where step.iteration > 1 {
            #expect(step.cachedPromptTokens > 0 && step.evaluatedTokens <= step.newTokens + 8, "\(step)")
        }
    }
}

/// Counts SVG elements by their class attribute.
private final class ElementCounter: NSObject, XMLParserDelegate, @unchecked Sendable {
    var classes: [String: Int] = [:]

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if let name = attributes["class"] { classes[name, default: 0] += 1 }
    }
}
