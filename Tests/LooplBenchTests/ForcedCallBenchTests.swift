import Loopl
@testable import LooplBench
import Testing

/// `--workload forced-call`: the forced row against the free row, and its goal.
@Suite struct ForcedCallBenchTests {
    @Test func theForcedRowIsItsMedianOverTheFreeRowsAndMeetsItsGoalFrom095() throws {
        let samples: [(forced: Double, free: Double, tokens: Int)] = [(90, 100, 32), (99, 100, 32), (96, 100, 32)]
        let rows = ForcedCallBench.rows(samples)
        #expect(rows.map(\.name) == [ForcedCallBench.free, ForcedCallBench.forced])
        let forced = try #require(rows.last)
        #expect(forced.decodeVsOff == 0.96)
        #expect(forced.generatedTokens == 32)
        var report = BenchReport(model: "m", cores: 2, llamaCppVersion: "v", threads: 2, promptTokens: 1, maxTokens: 1, runs: 3, warmup: 0)
        report.rows = rows
        let goals = BenchGoal.goals(for: report)
        #expect(goals.map(\.name) == ["forced call decode vs free text"] && goals.allSatisfy(\.met), "\(goals)")
        report.rows = ForcedCallBench.rows([(90, 100, 32)])
        #expect(BenchGoal.goals(for: report).map(\.met) == [false])
        #expect(ForcedCallBench.table(rows).contains("0.96x"))
    }
}
