import Foundation

/// A speed goal of docs/bench.md, read off a ``BenchReport``: what was measured, the goal, and
/// whether it was met. `loopl bench` prints them under its table; scripts/bench fails on a miss.
/// The goals themselves are data: ``GoalSpec``, from `goals.json`.
struct BenchGoal: Sendable, Equatable {
    enum Unit: String, Sendable, Equatable {
        case ratio, milliseconds = "ms", tokens, megabytesPerSecond = "MB/s"
    }

    /// What is measured, such as "server decode vs llama".
    var name: String
    var measured: Double
    var goal: Double
    /// True when the measured value must reach the goal; false when it must stay within it.
    var atLeast: Bool
    var unit: Unit
    /// For a ratio, the interquartile range of its per-round ratios: a gap smaller than this is noise.
    var iqr: Double? = nil

    var met: Bool { atLeast ? measured >= goal : measured <= goal }

    /// The in-process backend's row name: the other backends' decode speed is compared with its.
    static let inProcess = "llama"

    /// The goals that `report` has figures for (ratios need the reference, overheads the
    /// engine's own prompt time).
    static func goals(for report: BenchReport) -> [BenchGoal] {
        single(report) + throughput(report) + agent(report) + longArrival(report) + forcedCall(report)
    }

    /// The goal `id` of `goals.json` for `backend`; nil when the data has no such goal.
    private static func goal(_ id: String, _ backend: String = inProcess, count: Int? = nil, measured: Double,
                             iqr: Double? = nil) -> BenchGoal? {
        GoalSpec.named(id)?.goal(backend: backend, count: count, measured: measured, iqr: iqr)
    }

    /// The single-stream goals: decode and prefill against llama-bench, and TTFT overheads.
    private static func single(_ report: BenchReport) -> [BenchGoal] {
        var goals: [BenchGoal?] = []
        let local = report.backends.first { $0.name == inProcess }
        for row in report.backends {
            if row.name == inProcess {
                if let ratio = row.decodeRatio { goals.append(goal("decode", measured: ratio, iqr: row.decodeRatioRounds?.iqr)) }
                if let ratio = row.prefillRatio { goals.append(goal("prefill", measured: ratio, iqr: row.prefillRatioRounds?.iqr)) }
            } else if let local {
                let compared = row.compared(with: local)
                goals.append(compared.decodeRatio.flatMap { goal("decodeVsLocal", row.name, measured: $0, iqr: compared.decodeRatioRounds?.iqr) })
            }
            if let overhead = row.overheadMs {
                goals.append(goal(row.name == inProcess ? "overhead.local" : "overhead", row.name, measured: overhead.median))
            }
        }
        return goals.compactMap { $0 }
    }

    /// The goals of `--concurrency` at 1 and 4 streams: in process against llama-batched-bench
    /// (and its scaling from 1 to 4 against the engine's own), the others against in process.
    private static func throughput(_ report: BenchReport) -> [BenchGoal] {
        func row(_ backend: String, _ count: Int) -> BenchRow? {
            report.throughput.first { $0.name == backend && $0.concurrency == count }
        }
        func ratio(_ id: String, _ backend: String, _ row: BenchRow, over base: BenchRow) -> BenchGoal? {
            let compared = row.compared(with: base)
            return compared.decodeRatio.flatMap { goal(id, backend, measured: $0, iqr: compared.decodeRatioRounds?.iqr) }
        }
        var goals: [BenchGoal?] = []
        let backends = report.throughput.map(\.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for count in [1, 4] {
            guard let local = row(inProcess, count) else { continue }
            if let reference = row(BenchRow.throughputReference, count) { goals.append(ratio("at\(count).local", inProcess, local, over: reference)) }
            for backend in backends where backend != inProcess && backend != BenchRow.throughputReference {
                if let other = row(backend, count) { goals.append(ratio("at\(count)", backend, other, over: local)) }
            }
        }
        if let one = row(inProcess, 1), let four = row(inProcess, 4),
           let engineOne = row(BenchRow.throughputReference, 1), let engineFour = row(BenchRow.throughputReference, 4),
           let scaling = four.compared(with: one).decodeRatio, let engineScaling = engineFour.compared(with: engineOne).decodeRatio {
            func perRound(_ high: BenchRow, _ low: BenchRow) -> [Double] { zip(high.decodeByRound ?? [], low.decodeByRound ?? []).map { $0 / $1 } }
            let rounds = Quartiles.ofRatios(perRound(four, one), perRound(engineFour, engineOne))
            goals.append(goal("scaling", measured: scaling / engineScaling, iqr: rounds?.iqr))
        }
        return goals.compactMap { $0 }
    }

    /// In agent mode, per backend and concurrency: iterations after the first evaluate only their
    /// new tokens (unclamped: evaluating fewer than the new tokens is shown as it is), and their
    /// TTFT bears it out against the first iteration's, so that a cached-token count the backend
    /// misreports cannot meet the goal alone.
    private static func agent(_ report: BenchReport) -> [BenchGoal] {
        var groups: [(backend: String, concurrency: Int)] = []
        for step in report.agent where !groups.contains(where: { $0 == (step.name, step.concurrency) }) {
            groups.append((step.name, step.concurrency))
        }
        return groups.flatMap { backend, concurrency -> [BenchGoal] in
            let steps = report.agent.filter { $0.name == backend && $0.concurrency == concurrency }
            let later = steps.filter { ($0.iteration ?? 1) > 1 }
            guard let worst = later.compactMap({ step in step.evaluatedTokens.flatMap { evaluated in step.newTokens.map { evaluated - $0 } } }).max()
            else { return [] }
            let together = concurrency == 1 ? "" : ".together"
            var goals = [goal("agent.evaluated" + together, backend, count: concurrency, measured: Double(worst))]
            let first = steps.filter { ($0.iteration ?? 1) == 1 }.compactMap(\.ttftMs?.median).max() ?? 0
            if first > 0, let slowest = later.compactMap(\.ttftMs?.median).max() {
                goals.append(goal("agent.ttft" + together, backend, count: concurrency, measured: slowest / first))
            }
            return goals.compactMap { $0 }
        }
    }

    /// `--workload long-arrival`: the running streams' gaps of Loopl's row, and its arrival's TTFT
    /// and time until all are done against llama-server's.
    private static func longArrival(_ report: BenchReport) -> [BenchGoal] {
        report.rows.filter { $0.workload == .longArrival && $0.name != LongArrivalBench.server }.flatMap { row -> [BenchGoal] in
            [row.interTokenMaxMs.flatMap { goal("longArrival.largestGap", row.name, measured: $0) },
             row.interTokenP99Ms.flatMap { goal("longArrival.p99Gap", row.name, measured: $0) },
             row.wallVsServer.flatMap { goal("longArrival.allDone", row.name, measured: $0) },
             row.ttftVsServer.flatMap { goal("longArrival.ttft", row.name, measured: $0) }].compactMap { $0 }
        }
    }

    /// `--workload forced-call`: decode under the call's grammar against free text.
    private static func forcedCall(_ report: BenchReport) -> [BenchGoal] {
        report.rows.filter { $0.workload == .forcedCall }.compactMap { row in
            row.decodeVsOff.flatMap { goal("forcedCall.decode", row.name, measured: $0, iqr: row.decodeRatioRounds?.iqr) }
        }
    }

    /// The goals as an aligned table, each line ending in `ok` or `MISSED`; empty without goals.
    /// A ratio shows the interquartile range of its per-round ratios beside it.
    static func table(_ goals: [BenchGoal]) -> String {
        guard !goals.isEmpty else { return "" }
        let width = max(4, goals.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ count: Int, left: Bool = false) -> String {
            let space = String(repeating: " ", count: max(0, count - text.count))
            return left ? text + space : space + text
        }
        var lines = [pad("goal", width, left: true) + " " + pad("measured", 10) + " " + pad("IQR", 7) + " " + pad("goal", 12)]
        for goal in goals {
            let iqr = goal.iqr.map { String(format: "%.3f", $0) } ?? "-"
            lines.append(pad(goal.name, width, left: true) + " " + pad(format(goal.measured, goal.unit), 10) + " " + pad(iqr, 7) + " "
                         + pad((goal.atLeast ? ">= " : "<= ") + format(goal.goal, goal.unit), 12) + "  " + (goal.met ? "ok" : "MISSED"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func format(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .ratio: String(format: "%.3fx", value)
        case .milliseconds: String(format: "%.1f ms", value)
        case .tokens: String(format: "%.0f", value)
        case .megabytesPerSecond: String(format: "%.0f MB/s", value)
        }
    }
}
