import Foundation
import Loopl
import LooplServer

/// The pinned `llama-bench`, run once per round as the reference row: the engine's own speed.
enum LlamaBenchReference {
    /// Prompt tokens per second for pp`prompt` on an empty cache, and generated tokens per second
    /// for tg`generate` after `depth` tokens already in the cache (as the backends decode after their prompt).
    static func measure(model: String, threads: Int, prompt: Int, generate: Int, depth: Int) async throws -> (prefill: Double, decode: Double) {
        let prefill = try await run(model: model, threads: threads, arguments: ["-p", String(prompt), "-n", "0"])
        let decode = try await run(model: model, threads: threads, arguments: ["-p", "0", "-n", String(generate), "-d", String(depth)])
        return (prefill, decode)
    }

    /// The average tokens per second of the single test that `arguments` describe.
    private static func run(model: String, threads: Int, arguments: [String]) async throws -> Double {
        let child = try ChildProcess(executable: LlamaCppInstall.bench,
                                     arguments: ["-m", model, "-t", String(threads), "-r", "1", "-o", "json"] + arguments, output: .stream)
        var bytes: [UInt8] = []
        for await chunk in child.output { bytes += chunk }
        let status = await child.waitForExit()
        guard status == 0, let speed = (try? JSONValue(parsing: bytes))?.arrayValue?.first?["avg_ts"]?.doubleValue else {
            throw LooplError(.processFailed, "llama-bench failed (exit \(status)): \(child.lastLines.suffix(400))")
        }
        return speed
    }
}
