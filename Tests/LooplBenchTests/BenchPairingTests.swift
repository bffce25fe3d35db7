import Loopl
@testable import LooplBench
import LooplTestKit
import Synchronization
import Testing

/// `loopl bench` pairs each backend with its reference: a scripted backend, and references that
/// record their command lines and answer with speeds of their own.
@Suite struct BenchPairingTests {
    static let kind = BackendKind(name: "scripted", read: { _ in () }, start: { ScriptedModel.conformant(parallel: 2) })

    /// The command lines the references were given.
    final class Lines: Sendable {
        let all = Mutex<[[String]]>([])
        func append(_ line: [String]) { all.withLock { $0.append(line) } }
        var recorded: [[String]] { all.withLock { $0 } }
    }

    static func command(runs: Int, _ configure: (inout Bench) -> Void = { _ in }, lines: Lines) throws -> (Bench, Router) {
        var command = Bench()
        (command.backends, command.warmup, command.maxTokens, command.runs) = (["fake"], 0, 8, runs)
        configure(&command)
        // llama-bench: 1000 tok/s of prefill and 50 of decode; llama-batched-bench: S_TG 100 × N².
        command.referenceRunner = BenchReferenceRunner(
            llamaBench: { line in
                lines.append(line)
                return line.contains("-d") ? #"[{"avg_ts": 50}]"# : #"[{"avg_ts": 1000}]"#
            },
            batchedBench: { line in
                lines.append(line)
                let value = { (flag: String) in line.firstIndex(of: flag).map { line[$0 + 1] } ?? "" }
                return value("-npl").split(separator: ",").map { count in
                    let n = Int(count) ?? 0
                    return #"{"pp": \#(value("-npp")), "tg": \#(value("-ntg")), "pl": \#(n), "t_pp": 1, "t_tg": 1, "speed_tg": \#(100 * n * n)}"#
                }.joined(separator: "\n")
            })
        let config = try LooplConfig(json: #"{"default": "fake", "backends": {"fake": {"kind": "scripted"}}}"#, kinds: [kind])
        return (command, Router(config: config))
    }

    static func report(_ command: Bench) -> BenchReport {
        BenchReport(model: "m.gguf", cores: 2, llamaCppVersion: "test", threads: 2, promptTokens: command.promptTokens,
                    maxTokens: command.maxTokens, runs: command.runs, warmup: command.warmup)
    }

    static func value(_ flag: String, in line: [String]) -> String? {
        line.firstIndex(of: flag).map { line[$0 + 1] }
    }

    /// Each round's llama-bench runs take the prompt the backend evaluated (`-p`), the tokens
    /// it generated (`-n`) and the prompt it decoded after (`-d`); the ratios divide by them.
    @Test func llamaBenchRunsWithTheBackendsCountsAndTheRatiosDivideByIt() async throws {
        let lines = Lines()
        let (command, router) = try Self.command(runs: 2, { $0.promptTokens = 100 }, lines: lines)
        var report = Self.report(command)
        try await command.runSpeed(router: router, report: &report, log: { _ in })
        // The scripted model counts 4 tokens a message and one every 4 characters.
        let prompt = 4 + (Bench.filler(tokens: 60) + "Summarise.").count / 4
        let depth = 4 + "Tell me a long story about a fox.".count / 4
        #expect(report.promptTokens == prompt)
        let recorded = lines.recorded
        #expect(recorded.count == 4, "two rounds of prefill and decode: \(recorded)")
        for (index, line) in recorded.enumerated() {
            let decode = index % 2 == 1
            #expect(Self.value("-p", in: line) == (decode ? "0" : String(prompt)), "\(line)")
            #expect(Self.value("-n", in: line) == (decode ? "8" : "0"), "\(line)")
            #expect(Self.value("-d", in: line) == (decode ? String(depth) : nil), "\(line)")
        }
        let row = try #require(report.backends.first)
        #expect(row.prefillRatio == row.prefillTokensPerSecond.map { $0.median / 1000 })
        #expect(row.decodeRatio == row.decodeTokensPerSecond.map { $0.median / 50 })
    }

    /// llama-batched-bench runs once a round over every N, with the streams' prompt length and
    /// token count; each N's ratio divides by the reference at that same N.
    @Test func eachConcurrencyIsPairedWithTheReferenceAtTheSameN() async throws {
        let lines = Lines()
        let (command, router) = try Self.command(runs: 1, { $0.concurrency = [1, 2] }, lines: lines)
        var report = Self.report(command)
        try await command.runThroughput(router: router, report: &report, log: { _ in })
        let prompt = ConcurrentRound.prompts(count: 3).map { 4 + ($0.last?.text.count ?? 0) / 4 }.max() ?? 0
        #expect(report.promptTokens == prompt)
        let line = try #require(lines.recorded.first)
        #expect(lines.recorded.count == 1)
        #expect(Self.value("-npp", in: line) == String(prompt) && Self.value("-ntg", in: line) == "8" && Self.value("-npl", in: line) == "1,2", "\(line)")
        for count in [1, 2] {
            let row = try #require(report.throughput.first { $0.name == "fake" && $0.concurrency == count })
            #expect(row.decodeRatio == row.decodeTokensPerSecond.map { $0.median / Double(100 * count * count) }, "N = \(count)")
            let engine = try #require(report.throughput.first { $0.name == BenchRow.throughputReference && $0.concurrency == count })
            #expect(engine.decodeTokensPerSecond?.median == Double(100 * count * count))
        }
    }
}
