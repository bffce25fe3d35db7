import Foundation

/// A speed goal of docs/bench.md, read off a ``BenchReport``: what was measured, the goal, and
/// whether it was met. `loopl bench` prints them under its table; scripts/bench fails on a miss.
struct BenchGoal: Sendable, Equatable {
    enum Unit: Sendable, Equatable {
        case ratio, milliseconds, tokens
    }

    /// What is measured, such as "server decode vs llama".
    var name: String
    var measured: Double
    var goal: Double
    /// True when the measured value must reach the goal; false when it must stay within it.
    var atLeast: Bool
    var unit: Unit

    var met: Bool { atLeast ? measured >= goal : measured <= goal }

    /// The in-process backend's row name: the other backends' decode speed is compared with its.
    static let inProcess = "llama"

    /// The goals that `report` has figures for (ratios need the llama-bench reference, overheads
    /// the engine's own prompt time).
    static func goals(for report: BenchReport) -> [BenchGoal] {
        var goals: [BenchGoal] = []
        let local = report.backends.first { $0.backend == inProcess }
        for row in report.backends {
            if row.backend == inProcess {
                if let ratio = row.decodeRatio {
                    goals.append(BenchGoal(name: "\(row.backend) decode vs llama-bench", measured: ratio, goal: 0.98, atLeast: true, unit: .ratio))
                }
                if let ratio = row.prefillRatio {
                    goals.append(BenchGoal(name: "\(row.backend) prefill vs llama-bench", measured: ratio, goal: 0.97, atLeast: true, unit: .ratio))
                }
            } else if let local {
                goals.append(BenchGoal(name: "\(row.backend) decode vs \(inProcess)",
                                       measured: row.decodeTokensPerSecond.median / local.decodeTokensPerSecond.median,
                                       goal: 0.96, atLeast: true, unit: .ratio))
            }
            if let overhead = row.overheadMs {
                goals.append(BenchGoal(name: "\(row.backend) TTFT overhead", measured: overhead.median,
                                       goal: row.backend == inProcess ? 3 : 10, atLeast: false, unit: .milliseconds))
            }
        }
        var seen: [String] = []
        for step in report.agent where !seen.contains(step.backend) { seen.append(step.backend) }
        for backend in seen {
            let later = report.agent.filter { $0.backend == backend && $0.iteration > 1 }
            guard let worst = later.map({ $0.evaluatedTokens - $0.newTokens }).max() else { continue }
            goals.append(BenchGoal(name: "\(backend) agent: evaluated beyond the new tokens", measured: Double(max(worst, 0)),
                                   goal: 8, atLeast: false, unit: .tokens))
        }
        return goals
    }

    /// The goals as an aligned table, each line ending in `ok` or `MISSED`; empty without goals.
    static func table(_ goals: [BenchGoal]) -> String {
        guard !goals.isEmpty else { return "" }
        let width = max(4, goals.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ count: Int, left: Bool = false) -> String {
            let space = String(repeating: " ", count: max(0, count - text.count))
            return left ? text + space : space + text
        }
        var lines = [pad("goal", width, left: true) + " " + pad("measured", 10) + " " + pad("goal", 12)]
        for goal in goals {
            lines.append(pad(goal.name, width, left: true) + " " + pad(format(goal.measured, goal.unit), 10) + " "
                         + pad((goal.atLeast ? ">= " : "<= ") + format(goal.goal, goal.unit), 12) + "  " + (goal.met ? "ok" : "MISSED"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func format(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .ratio: String(format: "%.3fx", value)
        case .milliseconds: String(format: "%.1f ms", value)
        case .tokens: String(format: "%.0f", value)
        }
    }
}
