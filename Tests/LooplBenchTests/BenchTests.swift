import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Loopl
@testable import LooplBench
import Testing

/// `loopl bench`: its plan, its JSON schema, its chart, and a real run of the three backends.
@Suite(.serialized) struct BenchTests {
    static func spread(_ median: Double) -> Spread {
        Spread([median * 0.9, median, median * 1.2])!
    }

    static var sample: BenchReport {
        var report = BenchReport(model: "m.gguf", cores: 2, llamaCppVersion: "0.3.36", threads: 2, promptTokens: 503,
                                 maxTokens: 128, runs: 5, warmup: 1)
        var reference = BenchRow(name: "llama-bench", workload: .speed)
        (reference.prefillTokensPerSecond, reference.decodeTokensPerSecond) = (spread(242), spread(95))
        (reference.prefillByRound, reference.decodeByRound) = ([217.8, 242, 290.4], [85.5, 95, 114])
        for (name, decode) in [("llama", 90.0), ("server", 86.5), ("a<b&\"c'", 10.0)] {
            var row = BenchRow(name: name, workload: .speed)
            (row.startupMs, row.ttftMs, row.overheadMs) = (spread(150), spread(2100), name == "llama" ? spread(1.5) : nil)
            (row.prefillTokensPerSecond, row.decodeTokensPerSecond) = (spread(240), spread(decode))
            (row.prefillByRound, row.decodeByRound) = ([216, 240, 288], [decode * 0.9, decode, decode * 1.2])
            (row.prefillRatio, row.decodeRatio) = (0.99, decode / 95)
            (row.prefillRatioRounds, row.decodeRatioRounds) = (Quartiles([0.9, 0.99, 1.1]), Quartiles([0.9, decode / 95, 1.0]))
            (row.hostRSSMiB, row.childRSSMiB) = (240.5, 0)
            report.rows.append(row)
        }
        report.rows.append(reference)
        report.rows += [.agentStep("llama", iteration: 1, prompt: 239, cached: 0, previousPrompt: 0, ttftMs: Spread([900])),
                        .agentStep("llama", iteration: 2, prompt: 298, cached: 239, previousPrompt: 239, ttftMs: Spread([250.5])),
                        .agentStep("llama", concurrency: 4, conversation: 3, iteration: 2, prompt: 298, cached: 0, previousPrompt: 239,
                                   ttftMs: Spread([700]))]
        return report
    }

    /// A `--concurrency 1,4` report: llama scales 84 to 140 (the engine 85 to 145), server keeps up.
    static var throughputSample: BenchReport {
        var report = BenchReport(model: "m.gguf", cores: 2, llamaCppVersion: "0.3.36", threads: 2, promptTokens: 41,
                                 maxTokens: 128, runs: 3, warmup: 1)
        report.concurrency = [1, 4]
        func row(_ backend: String, _ count: Int, _ rounds: [Double]) -> BenchRow {
            var row = BenchRow(name: backend, workload: .throughput, concurrency: count)
            (row.promptTokens, row.generatedTokens, row.decodeTokensPerSecond, row.decodeByRound) = (41, 128, Spread(rounds), rounds)
            (row.streamDecodeTokensPerSecond, row.wallMs) = (Spread(rounds.map { $0 / Double(count) }), Spread([1500, 1600, 1700]))
            (row.ttftP50Ms, row.ttftP95Ms, row.interTokenP95Ms) = (300, 420, 30)
            return row
        }
        for count in [1, 4] {
            let engine = row("llama-batched-bench", count, count == 1 ? [84, 85, 86.0] : [144, 145, 146.0])
            for (backend, rounds) in [("llama", count == 1 ? [83, 84, 85.0] : [138, 140, 142.0]),
                                      ("server", count == 1 ? [80, 81, 82.0] : [120, 136, 141.0])] {
                report.rows.append(row(backend, count, rounds).compared(with: engine))
            }
            report.rows.append(engine)
        }
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
        for report in [Self.sample, Self.throughputSample] {
            let text = report.json.jsonText(style: .python)
            let back = try BenchReport(json: JSONValue(parsing: text))
            #expect(back == report)
            #expect(back.json["schemaVersion"] == .integer(BenchReport.schemaVersion))
        }
        #expect(throws: LooplError.self) { try BenchReport(json: ["schemaVersion": 99]) }
        // Version 1's separate lists are refused with the version named, not read as an empty report.
        var old = Self.sample.json
        if case .object(var object) = old {
            object["schemaVersion"] = 1
            old = .object(object)
        }
        #expect(throws: LooplError.self) { try BenchReport(json: old) }
    }

    /// Every workload's rows are one record: the same keys name the same figure in every table (the
    /// aggregate of N streams is `decodeTokensPerSecond`, as one stream's decode is), and a figure
    /// a row lacks is left out rather than written as null.
    @Test func everyTableWritesOneRowModel() throws {
        let rows = (Self.sample.json["rows"]?.arrayValue ?? []) + (Self.throughputSample.json["rows"]?.arrayValue ?? [])
        #expect(rows.count == 7 + 6)
        for row in rows {
            let object = try #require(row.objectValue)
            #expect(object["name"]?.stringValue != nil && object["workload"]?.stringValue != nil && object["concurrency"]?.intValue != nil)
            #expect(!object.values.contains(.null), "\(row)")
            #expect(object.keys.filter { $0.lowercased().contains("aggregate") } == [])
            if object["workload"] != "agent" { #expect(object["decodeTokensPerSecond"]?["median"]?.doubleValue != nil, "\(row)") }
        }
        #expect(Set(rows.compactMap { $0["workload"]?.stringValue }) == ["speed", "agent", "throughput"])
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

    /// With --concurrency: aggregate decode against N, one line per backend, the reference dashed.
    @Test func throughputChartHasALinePerBackend() throws {
        let svg = BenchChart.svg(Self.throughputSample)
        let parser = XMLParser(data: Data(svg.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map(String.init(describing:)) ?? "")")
        #expect(counter.classes["line"] == 2 && counter.classes["reference"] == 1)
        #expect(counter.elements["circle"] == 6)
        #expect(svg.contains("llama-batched-bench") && svg.contains("concurrent streams (N)"))
    }

    @Test func tableShowsRatiosBesideEachBackend() {
        let table = Self.sample.table
        #expect(table.contains("0.947x"))  // 90 / 95
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("llama-bench") && $0.contains("1.000x") })
        #expect(table.contains("evaluated"))
        // The interquartile range of the per-round ratios beside each ratio: 0.9 to 1.0 is 0.050 (q1 0.924, q3 0.974 for llama).
        #expect(table.split(separator: "\n").contains { $0.hasPrefix("llama ") && $0.contains("0.947x") && $0.contains("0.050") }, "\(table)")
        let throughput = Self.throughputSample.table
        #expect(throughput.contains("aggregate t/s") && throughput.contains("TTFT p95") && throughput.contains("ITL p95"))
        #expect(throughput.split(separator: "\n").contains { $0.hasPrefix("llama-batched-bench   4") && $0.contains("1.000x") }, "\(throughput)")
        #expect(throughput.contains("0.966x"), "\(throughput)")  // llama at 4: 140 / 145
    }

    /// Each goal of docs/bench.md beside its figure; a miss is marked, and only a miss.
    @Test func goalsAreShownAndMissesMarked() throws {
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
        #expect(table.contains("0.947x   0.050    >= 0.980x  MISSED"), "\(table)")
        #expect(table.contains("1.5 ms       -    <= 3.0 ms  ok"), "\(table)")
        var slow = Self.sample
        let second = try #require(slow.rows.firstIndex { $0.workload == .agent && $0.iteration == 2 })
        slow.rows[second] = .agentStep("llama", iteration: 2, prompt: 298, cached: 0, previousPrompt: 239, ttftMs: Spread([250.5]))
        #expect(BenchGoal.goals(for: slow).first { $0.name == "llama agent: evaluated beyond the new tokens" }?.met == false)
        // Four conversations interleaved are judged on their own: conversation 3 evaluated its whole prompt again.
        #expect(byName["llama agent, 4 conversations: evaluated beyond the new tokens"].map { $0.measured == 239 && !$0.met } == true)
        #expect(BenchGoal.table([]) == "")
    }

    /// The goals are data (goals.json, which scripts/bench-goals reads too): every entry is read,
    /// and every goal the bench reports is one of them.
    @Test func goalsComeFromTheirDataFile() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/LooplBench/goals.json")
        let entries = try #require(try JSONValue(parsing: String(contentsOf: url, encoding: .utf8))["goals"]?.arrayValue)
        #expect(GoalSpec.all.count == entries.count && entries.count > 10)
        #expect(GoalSpec.named("decode").map { $0.threshold == 0.98 && $0.atLeast && $0.unit == .ratio } == true)
        let ids = ["decode", "prefill", "decodeVsLocal", "overhead.local", "overhead", "at1.local", "at4.local", "at1", "at4", "scaling",
                   "agent.evaluated", "agent.evaluated.together", "agent.ttft", "agent.ttft.together"]
        #expect(ids.filter { GoalSpec.named($0) == nil } == [])
        let reported = BenchGoal.goals(for: Self.sample) + BenchGoal.goals(for: Self.throughputSample)
        #expect(reported.count >= 12)
        for goal in reported {
            #expect(GoalSpec.all.contains { $0.threshold == goal.goal && $0.atLeast == goal.atLeast }, "\(goal.name)")
        }
    }

    /// The goals of docs/bench.md for --concurrency, with the spread of their per-round ratios.
    @Test func throughputGoalsAreReadOffTheRows() throws {
        let goals = BenchGoal.goals(for: Self.throughputSample)
        let byName = Dictionary(uniqueKeysWithValues: goals.map { ($0.name, $0) })
        #expect(Set(byName.keys) == ["llama at 1 vs llama-batched-bench", "server at 1 vs llama", "llama at 4 vs llama-batched-bench",
                                     "server at 4 vs llama", "llama scaling 1 to 4 vs llama-batched-bench"])
        let four = try #require(byName["llama at 4 vs llama-batched-bench"])
        #expect(abs(four.measured - 140.0 / 145) < 1e-9 && four.goal == 0.95 && four.met)
        #expect(abs((four.iqr ?? 0) - (Quartiles([138.0 / 144, 140.0 / 145, 142.0 / 146])?.iqr ?? -1)) < 1e-12)
        let one = try #require(byName["llama at 1 vs llama-batched-bench"])
        #expect(abs(one.measured - 84.0 / 85) < 1e-9 && one.goal == 0.98 && one.met)
        let server = try #require(byName["server at 4 vs llama"])
        #expect(abs(server.measured - 136.0 / 140) < 1e-9 && server.met && (server.iqr ?? 0) > 0.05)  // a wide spread: noise, not a gap
        #expect(byName["server at 1 vs llama"].map { abs($0.measured - 81.0 / 84) < 1e-9 && $0.met } == true)
        let scaling = try #require(byName["llama scaling 1 to 4 vs llama-batched-bench"])
        #expect(abs(scaling.measured - (140.0 / 84) / (145.0 / 85)) < 1e-9 && scaling.goal == 0.9 && scaling.met)
        #expect(scaling.iqr != nil)
        var flat = Self.throughputSample
        flat.rows = flat.rows.map { row in
            var row = row
            if row.name == "llama", row.concurrency == 4 { (row.decodeTokensPerSecond, row.decodeByRound) = (Spread([84, 85, 86]), [84, 85, 86]) }
            return row
        }
        let missed = BenchGoal.goals(for: flat).filter { !$0.met }.map(\.name)
        #expect(missed == ["llama at 4 vs llama-batched-bench", "llama scaling 1 to 4 vs llama-batched-bench"])
    }
}

/// Counts SVG elements by their class attribute.
private final class ElementCounter: NSObject, XMLParserDelegate, @unchecked Sendable {
    var classes: [String: Int] = [:]

    var elements: [String: Int] = [:]

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements[elementName, default: 0] += 1
        if let name = attributes["class"] { classes[name, default: 0] += 1 }
    }
}
