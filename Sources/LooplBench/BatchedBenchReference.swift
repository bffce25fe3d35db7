import Foundation
import Loopl

/// The pinned `llama-batched-bench`, run once per round as the reference rows of
/// `loopl bench --concurrency`: the engine decoding N sequences at once, with nothing around it.
enum BatchedBenchReference {
    /// One line of its output: N sequences of `prompt` tokens each, then `generated` tokens each.
    struct Result: Sendable, Equatable {
        var prompt: Int
        var generated: Int
        var sequences: Int
        /// The prompts' evaluation, all N together (T_PP), and the generation loop after it (T_TG).
        var promptSeconds: Double
        var generationSeconds: Double
        /// S_TG: N × generated tokens over T_TG.
        var decodeTokensPerSecond: Double
    }

    /// The command line for N in `concurrency`, `prompt` tokens per sequence and `generate`
    /// tokens each: `-npp P -ntg T -npl N,...`, a context of P + T cells a sequence rounded up to
    /// 256, for the most sequences (llama.cpp splits it evenly between them, and skips a case
    /// that does not fit without a word), the in-process backend's flash attention, and JSON lines.
    static func arguments(model: String, threads: Int, prompt: Int, generate: Int, concurrency: [Int],
                          flashAttention: String = "auto") -> [String] {
        let context = (concurrency.max() ?? 1) * ((prompt + generate + 255) / 256 * 256)
        return ["-m", model, "-t", String(threads), "-c", String(context), "-npp", String(prompt), "-ntg", String(generate),
                "-npl", concurrency.map(String.init).joined(separator: ","), "-fa", flashAttention, "--output-format", "jsonl"]
    }

    /// One run over every N: its result per N, in the order of `concurrency`.
    static func measure(model: String, threads: Int, prompt: Int, generate: Int, concurrency: [Int], flashAttention: String,
                        runner: BenchReferenceRunner) async throws -> [Result] {
        let output = try await runner.batchedBench(arguments(model: model, threads: threads, prompt: prompt, generate: generate,
                                                             concurrency: concurrency, flashAttention: flashAttention))
        let results = try parse(output)
        return try concurrency.map { count in
            guard let result = results.first(where: { $0.sequences == count && $0.prompt == prompt && $0.generated == generate }) else {
                throw LooplError(.processFailed, "llama-batched-bench printed no result for \(count) sequences of \(prompt) + \(generate) tokens: \(output.suffix(400))")
            }
            return result
        }
    }

    /// The results in its `--output-format jsonl` output: one JSON object a line, each with
    /// `pp`, `tg`, `pl`, `t_pp`, `t_tg` and `speed_tg`; other lines are skipped.
    static func parse(_ text: String) throws -> [Result] {
        try text.split(whereSeparator: \.isNewline).compactMap { line -> Result? in
            guard line.first == "{", let object = try? JSONValue(parsing: Data(line.utf8)), object["speed_tg"] != nil else { return nil }
            guard let prompt = object["pp"]?.intValue, let generated = object["tg"]?.intValue, let sequences = object["pl"]?.intValue,
                  let promptSeconds = object["t_pp"]?.doubleValue, let generationSeconds = object["t_tg"]?.doubleValue,
                  let speed = object["speed_tg"]?.doubleValue else {
                throw LooplError(.protocolViolation, "llama-batched-bench printed a result without pp, tg, pl, t_pp, t_tg and speed_tg: \(line)")
            }
            return Result(prompt: prompt, generated: generated, sequences: sequences, promptSeconds: promptSeconds,
                          generationSeconds: generationSeconds, decodeTokensPerSecond: speed)
        }
    }
}
