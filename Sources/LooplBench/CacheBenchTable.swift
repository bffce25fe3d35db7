import Foundation

/// The table of `loopl bench --workload shared-prefix|prompt-cache`: for each row and phase, the
/// TTFT p50 over every measured request, the prompt tokens evaluated (the median over rounds of
/// the phase's total), host-seen decode tok/s p50, and the TTFT's ratio to the Loopl row with the
/// feature off and to the llama-server row of the same phase.
struct CacheBenchTable: Sendable {
    /// The samples of each row (by name), phase (by name) and measured round.
    typealias Samples = [String: [String: [[CacheSample]]]]

    let title: String
    /// The rows' workload.
    let workload: BenchRow.Workload
    let rows: [String]
    let phases: [String]
    /// The row with the feature off, and the llama-server row the others are compared with.
    let off: String, server: String

    /// A row for each row name and phase that has requests.
    func lines(_ samples: Samples) -> [BenchRow] {
        var lines: [BenchRow] = []
        for phase in phases {
            let offTTFT = Self.ttft(samples[off]?[phase])
            let serverTTFT = Self.ttft(samples[server]?[phase])
            for row in rows {
                guard let rounds = samples[row]?[phase], !rounds.isEmpty, let ttft = Self.ttft(rounds) else { continue }
                let requests = rounds.flatMap { $0 }
                let totals = rounds.map { Double($0.map(\.evaluatedTokens).reduce(0, +)) }
                let prompts = rounds.map { Double($0.map(\.promptTokens).reduce(0, +)) }
                var line = BenchRow(name: row, workload: workload)
                (line.phase, line.ttftMs, line.decodeTokensPerSecond) = (phase, Spread(requests.map(\.ttftMs)), Spread(requests.map(\.decodeTokensPerSecond)))
                line.promptTokens = Int((Quartiles(prompts)?.median ?? 0).rounded())
                line.evaluatedTokens = Int((Quartiles(totals)?.median ?? 0).rounded())
                line.startupMs = Spread(requests.compactMap(\.loadMs))
                line.ttftVsOff = offTTFT.flatMap { $0 > 0 ? ttft / $0 : nil }
                line.ttftVsServer = serverTTFT.flatMap { $0 > 0 ? ttft / $0 : nil }
                lines.append(line)
            }
        }
        return lines
    }

    /// The TTFT p50 over every request of every round; nil without requests.
    static func ttft(_ rounds: [[CacheSample]]?) -> Double? {
        Quartiles((rounds ?? []).flatMap { $0 }.map(\.ttftMs))?.median
    }

    /// The rows of `compared` that wrote a different text than the row with the feature off, in
    /// some request of some round (requests paired in order).
    func differing(_ samples: Samples, compared: [String]) -> [String] {
        compared.filter { row in
            phases.contains { phase in
                let mine = (samples[row]?[phase] ?? []).flatMap { $0 }.map(\.text)
                let theirs = (samples[off]?[phase] ?? []).flatMap { $0 }.map(\.text)
                return mine != theirs
            }
        }
    }

    func text(_ samples: Samples, sameTextRows: [String]) -> String {
        var out = [title, "row                          phase      TTFT p50 ms  prompt  evaluated  decode tok/s  TTFT vs off  TTFT vs server"]
        for line in lines(samples) {
            let ratio = { (value: Double?) in value.map { String(format: "%.2fx", $0) } ?? "-" }
            out.append([line.name.column(28), (line.phase ?? "").column(10), String(format: "%.0f", line.ttftMs?.median ?? 0).column(12),
                        String(line.promptTokens ?? 0).column(7), String(line.evaluatedTokens ?? 0).column(10),
                        String(format: "%.1f", line.decodeTokensPerSecond?.median ?? 0).column(13), ratio(line.ttftVsOff).column(12),
                        ratio(line.ttftVsServer)].joined(separator: " "))
        }
        let differing = differing(samples, compared: sameTextRows)
        out.append(differing.isEmpty ? "\(sameTextRows.joined(separator: ", ")) wrote the same text as \(off) in every request"
                                     : "DIFFERENT text from \(off): \(differing.joined(separator: ", "))")
        return out.joined(separator: "\n") + "\n"
    }
}
