import Loopl
import LooplLlama

/// `loopl bench --workload forced-call`: decode speed under a forced call's grammar against free
/// text of the same length on the same prompt. Each round, on one in-process model: a call of
/// `send_email` forced by `tool_choice: required`, then the same prompt (the tool offered)
/// completed with no grammar for as many tokens as the call took. Speed is the engine's: tokens
/// sampled after the first over the time from the first to the last (a call's events reach the
/// host only when it closes).
struct ForcedCallBench {
    /// The workload's name for `--workload`.
    package static let name = "forced-call"
    static let free = "free text", forced = "forced call"

    static let tool = ToolSpec(name: "send_email", description: "Send an email.",
                               parameters: ["type": "object", "required": ["to", "subject", "body"],
                                            "properties": ["to": ["type": "string"], "subject": ["type": "string"],
                                                           "body": ["type": "string"]]])
    static let messages: [Message] = [.user("Email ana@example.com with the subject Lunch on Friday and the text: Shall we meet at "
                                            + "noon at the usual place by the river? I will book a table for four.")]

    let model: String
    let threads: Int
    let runs: Int
    let warmup: Int

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let llama = try await LlamaModel.start(.init(model: model, contextLength: 2048, threads: threads, parallel: 1, promptCache: false))
        let samples: [(forced: Double, free: Double, tokens: Int)]
        do {
            samples = try await rounds(llama, log)
            await llama.close()
        } catch {
            await llama.close()
            throw error
        }
        let rows = Self.rows(samples)
        return (Self.table(rows), rows)
    }

    /// Each round's forced and free decode speeds, in tokens a second, and the call's tokens.
    private func rounds(_ model: LlamaModel, _ log: Bench.Log) async throws -> [(forced: Double, free: Double, tokens: Int)] {
        var forcedOptions = GenerationOptions.greedy(maxTokens: 128)
        forcedOptions.toolChoice = .required
        let prompt = try model.renderPrompt(messages: Self.messages, tools: [Self.tool], options: forcedOptions)
        var samples: [(forced: Double, free: Double, tokens: Int)] = []
        for round in 1...(warmup + runs) {
            let call = try await Bench.timed { model.generate(messages: Self.messages, tools: [Self.tool], options: forcedOptions) }.metrics
            var freeOptions = GenerationOptions.greedy(maxTokens: call.generatedTokens)
            freeOptions.backend.ignoreEndOfGeneration = true
            let text = try await Bench.timed { model.complete(prompt: prompt, options: freeOptions) }.metrics
            let sample = (forced: call.tokensPerSecond ?? 0, free: text.tokensPerSecond ?? 0, tokens: call.generatedTokens)
            log("round \(round)\(round > warmup ? "" : " (warm-up)"): forced \(Int(sample.forced)) tok/s, free \(Int(sample.free)) tok/s, "
                + "\(sample.tokens) tokens")
            if round > warmup { samples.append(sample) }
        }
        return samples
    }

    /// The free and forced rows; the forced row's `decodeVsOff` is its median over the free row's.
    static func rows(_ samples: [(forced: Double, free: Double, tokens: Int)]) -> [BenchRow] {
        var free = BenchRow(name: Self.free, workload: .forcedCall)
        var forced = BenchRow(name: Self.forced, workload: .forcedCall)
        (free.decodeTokensPerSecond, free.decodeByRound) = (Spread(samples.map(\.free)), samples.map(\.free))
        (forced.decodeTokensPerSecond, forced.decodeByRound) = (Spread(samples.map(\.forced)), samples.map(\.forced))
        forced.generatedTokens = samples.last?.tokens
        if let top = forced.decodeTokensPerSecond?.median, let bottom = free.decodeTokensPerSecond?.median, bottom > 0 {
            forced.decodeVsOff = top / bottom
        }
        forced.decodeRatioRounds = Quartiles(samples.filter { $0.free > 0 }.map { $0.forced / $0.free })
        return [free, forced]
    }

    static func table(_ rows: [BenchRow]) -> String {
        var lines = ["forced call: the engine's decode tok/s under a forced call's grammar and for free text of the same length, same prompt (medians)",
                     "row          decode tok/s  tokens  vs free text"]
        for row in rows {
            lines.append([row.name.column(12), String(format: "%.1f", row.decodeTokensPerSecond?.median ?? 0).column(13),
                          (row.generatedTokens.map(String.init) ?? "-").column(7),
                          row.decodeVsOff.map { String(format: "%.2fx", $0) } ?? "-"].joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
