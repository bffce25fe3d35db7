import Foundation
import Loopl
import LooplLlama

/// The pinned `llama-bench`, run once per round as the reference row: the engine's own speed.
enum LlamaBenchReference {
    /// The engine settings that the reference shares with the in-process backend, whose context
    /// takes a batch and a micro-batch of its `batchSize` plus its `parallel`, and its flash
    /// attention (``FlashAttention``).
    struct Settings: Sendable, Equatable {
        var batch: Int
        var ubatch: Int
        var flashAttention: String

        /// The in-process backend's, from the `llama` backend's section when the configuration
        /// has one (its defaults otherwise).
        init(section: JSONObject?) {
            var config = ConfigSection(section ?? JSONObject(), context: "llama")
            let configuration = (try? LlamaModel.Configuration(from: &config)) ?? LlamaModel.Configuration()
            batch = max(configuration.batchSize, 1) + configuration.resolvedParallel
            ubatch = batch
            flashAttention = configuration.flashAttention.rawValue
        }
    }

    /// The two command lines of a round: prefill of `prompt` tokens on an empty cache (`-p P -n 0`),
    /// and `generate` tokens after `depth` tokens already in the cache (`-p 0 -n T -d D`, as the
    /// backends decode after their prompt), each with `settings`.
    static func arguments(model: String, threads: Int, prompt: Int, generate: Int, depth: Int,
                          settings: Settings) -> (prefill: [String], decode: [String]) {
        let common = ["-m", model, "-t", String(threads), "-r", "1", "-o", "json", "-b", String(settings.batch),
                      "-ub", String(settings.ubatch), "-fa", settings.flashAttention]
        return (common + ["-p", String(prompt), "-n", "0"], common + ["-p", "0", "-n", String(generate), "-d", String(depth)])
    }

    /// Prompt tokens per second for pp`prompt` on an empty cache, and generated tokens per second
    /// for tg`generate` after `depth` tokens already in the cache.
    static func measure(model: String, threads: Int, prompt: Int, generate: Int, depth: Int, settings: Settings,
                        runner: BenchReferenceRunner) async throws -> (prefill: Double, decode: Double) {
        let lines = arguments(model: model, threads: threads, prompt: prompt, generate: generate, depth: depth, settings: settings)
        return (try speed(try await runner.llamaBench(lines.prefill)), try speed(try await runner.llamaBench(lines.decode)))
    }

    /// The average tokens per second of the single test in llama-bench's JSON output.
    static func speed(_ output: String) throws -> Double {
        guard let speed = (try? JSONValue(parsing: Data(output.utf8)))?.arrayValue?.first?["avg_ts"]?.doubleValue else {
            throw LooplError(.processFailed, "llama-bench printed no JSON array with avg_ts: \(output.suffix(400))")
        }
        return speed
    }
}
