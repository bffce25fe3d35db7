import Foundation
import Loopl
@testable import LooplBench
@testable import LooplCLI
import Testing

/// `loopl bench` as a command: its options, and real runs of the three backends through the binary.
@Suite(.serialized) struct BenchCommandTests {
    @Test func concurrencyListsAreCheckedSortedAndDeduplicated() throws {
        #expect(try BenchCommand.counts("4,1,4, 2") == [1, 2, 4])
        #expect(try BenchCommand.counts(nil) == [])
        for bad in ["0", "65", "a", "1,,2", ""] {
            #expect(throws: UsageError.self) { try BenchCommand.counts(bad) }
        }
    }

    @Test func concurrencyRejectsWhatItCannotMeasure() async {
        #expect(await CapturedConsole.run(["bench", "--concurrency", "1,4", "--max-tokens", "1"]).status == .usage)
        #expect(await CapturedConsole.run(["bench", "--concurrency", "1,4", "--prompt", "hi"]).status == .usage)
        #expect(await CapturedConsole.run(["bench", "--concurrency", "0"]).status == .usage)
    }

    @Test func promptAndPromptTokensExcludeEachOther() async {
        let result = await CapturedConsole.run(["bench", "--prompt", "hi", "--prompt-tokens", "20"])
        #expect(result.status == .usage)
    }

    /// One run of each backend with tiny token counts through the real binary: correctness only.
    @Test(.timeLimit(.minutes(10))) func realRunOfTheThreeBackends() throws {
        let directory = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try ToolingCommandTests.loopl(["bench", "--backends", "llama,server,stdio", "--runs", "1", "--warmup", "0",
                                                    "--prompt-tokens", "32", "--max-tokens", "4", "--threads", "2",
                                                    "--json", directory + "/b.json", "--svg", directory + "/b.svg"])
        #expect(result.status == 0, "\(result.err)")
        let report = try Self.report(at: directory + "/b.json")
        #expect(report.backends.map(\.name) == ["llama", "server", "stdio"])
        for row in report.backends {
            #expect((row.decodeTokensPerSecond?.median ?? 0) > 0 && (row.prefillTokensPerSecond?.median ?? 0) > 0, "\(row.name)")
            #expect(row.overheadMs != nil, "\(row.name) reports the engine's prompt time")
            #expect((row.hostRSSMiB ?? 0) > 0)
        }
        #expect(report.backends[0].childRSSMiB == 0 && (report.backends[1].childRSSMiB ?? 0) > 0 && (report.backends[2].childRSSMiB ?? 0) > 0)
        #expect(report.reference != nil)
        #expect(result.out.contains("llama-bench"))
        #expect(result.out.contains("llama decode vs llama-bench") && result.out.contains("stdio decode vs llama"), "\(result.out)")
        #expect(FileManager.default.fileExists(atPath: directory + "/b.svg"))

        let agent = try ToolingCommandTests.loopl(["bench", "--agent", "--backends", "llama,server,stdio", "--runs", "1", "--warmup", "0",
                                                   "--max-tokens", "2", "--json", directory + "/a.json"])
        #expect(agent.status == 0, "\(agent.err)")
        let steps = try Self.report(at: directory + "/a.json").agent
        #expect(steps.count == 3 * AgentConversation.iterations().count)
        // After the first iteration every backend reuses its cache: it evaluates about the new tokens only.
        for step in steps where (step.iteration ?? 1) > 1 {
            #expect((step.cachedPromptTokens ?? 0) > 0 && (step.evaluatedTokens ?? .max) <= (step.newTokens ?? 0) + 8, "\(step)")
        }
    }

    /// `--concurrency 1,2` on the three backends with tiny token counts, and llama-batched-bench
    /// at the same N, through the real binary: correctness only.
    @Test(.timeLimit(.minutes(10))) func realConcurrencyRunOfTheThreeBackends() throws {
        let directory = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try ToolingCommandTests.loopl(["bench", "--backends", "llama,server,stdio", "--concurrency", "1,2", "--runs", "1",
                                                    "--warmup", "0", "--max-tokens", "8", "--threads", "2",
                                                    "--json", directory + "/c.json", "--svg", directory + "/c.svg"])
        #expect(result.status == 0, "\(result.err)")
        let report = try Self.report(at: directory + "/c.json")
        #expect(report.concurrency == [1, 2])
        #expect(report.throughput.map(\.name) == ["llama", "server", "stdio", "llama-batched-bench"] + ["llama", "server", "stdio", "llama-batched-bench"])
        #expect(report.throughput.map(\.concurrency) == [1, 1, 1, 1, 2, 2, 2, 2])
        for row in report.throughput {
            #expect((row.decodeTokensPerSecond?.median ?? 0) > 0 && row.decodeByRound?.count == 1 && row.generatedTokens == 8, "\(row)")
            #expect(row.promptTokens == report.promptTokens && report.promptTokens > 10, "\(row)")
            #expect((row.ttftP95Ms ?? 0) >= (row.ttftP50Ms ?? .infinity) && row.interTokenP95Ms != nil && (row.wallMs?.median ?? 0) > 0, "\(row)")
            #expect(row.isReference ? row.decodeRatio == nil : (row.decodeRatio ?? 0) > 0, "\(row)")
        }
        #expect(result.out.contains("llama at 1 vs llama-batched-bench") && result.out.contains("stdio at 1 vs llama"), "\(result.out)")
        #expect(try String(contentsOfFile: directory + "/c.svg", encoding: .utf8).contains("polyline"))

        // Agent mode's conversations side by side run through the same Model calls on every backend: one is enough here.
        let agent = try ToolingCommandTests.loopl(["bench", "--agent", "--concurrency", "2", "--backends", "llama", "--runs", "1",
                                                   "--warmup", "0", "--max-tokens", "2", "--json", directory + "/a.json"])
        #expect(agent.status == 0, "\(agent.err)")
        let steps = try Self.report(at: directory + "/a.json").agent
        #expect(steps.count == 2 * AgentConversation.iterations().count)
        for conversation in [1, 2] {
            let turns = steps.filter { $0.conversation == conversation }
            #expect(turns.map(\.iteration) == [1, 2, 3, 4] && turns.allSatisfy { $0.concurrency == 2 && $0.name == "llama" }, "\(turns)")
            #expect(zip(turns.dropFirst(), turns).allSatisfy { $0.promptTokens == ($1.promptTokens ?? 0) + ($0.newTokens ?? 0) }, "\(turns)")
            // Interleaved with the other, each conversation keeps its cache: it evaluates about its new tokens only.
            for turn in turns where (turn.iteration ?? 1) > 1 {
                #expect((turn.cachedPromptTokens ?? 0) > 0 && (turn.evaluatedTokens ?? .max) <= (turn.newTokens ?? 0) + 8, "\(turn)")
            }
        }
        #expect(agent.out.contains("llama agent, 2 conversations: evaluated beyond the new tokens") && agent.out.contains("  ok"), "\(agent.out)")
    }

    /// A new empty folder for one test's files; the test removes it.
    static func scratchFolder() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-bench-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The report that `loopl bench --json PATH` wrote.
    static func report(at path: String) throws -> BenchReport {
        try BenchReport(json: JSONValue(parsing: String(contentsOfFile: path, encoding: .utf8)))
    }
}

/// `--concurrency` above the default `parallel` raises it on the backends measured.
@Suite struct BenchParallelTests {
    @Test func parallelIsRaisedWhereTheKindTakesIt() throws {
        let config = try LooplConfig.builtIn(kinds: BackendFactory.kinds)
        var warnings: [String] = []
        let raised = Bench.raisingParallel(config, to: 8, for: ["llama", "server", "stdio"], kinds: try BackendFactory.kinds) { warnings.append($0) }
        // Every built-in kind takes 'parallel'.
        for name in ["llama", "server", "stdio"] {
            #expect(raised.backends[name]?.section["parallel"] == 8, "\(name): \(String(describing: raised.backends[name]?.section))")
        }
        #expect(warnings.isEmpty, "\(warnings)")
        // A kind that takes no 'parallel' is left as it is, and named.
        let other = BackendKind(name: "other", read: { _ in 0 }, start: { _ in throw LooplError(.invalidConfiguration, "not started") })
        let otherConfig = try LooplConfig(json: #"{"default": "x", "backends": {"x": {"kind": "other"}}}"#, kinds: [other])
        let kept = Bench.raisingParallel(otherConfig, to: 8, for: ["x"], kinds: [other]) { warnings.append($0) }
        #expect(kept.backends["x"]?.section["parallel"] == nil && warnings.count == 1 && warnings[0].contains("'x'"), "\(warnings)")
        #expect(raised.backends["isolated"]?.section["parallel"] == nil, "a backend not measured is left alone")
        var none: [String] = []
        let same = Bench.raisingParallel(config, to: 4, for: ["llama"], kinds: try BackendFactory.kinds) { none.append($0) }
        #expect(same.backends["llama"]?.section == config.backends["llama"]?.section && none.isEmpty)
    }
}
