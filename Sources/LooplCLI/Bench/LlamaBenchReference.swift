import Foundation
import Loopl

/// The pinned `llama-bench`, run once per round as the reference row: the engine's own speed.
enum LlamaBenchReference {
    /// Prompt and generation tokens per second for one repetition of pp`prompt` and tg`generate`.
    static func measure(model: String, threads: Int, prompt: Int, generate: Int) async throws -> (prefill: Double, decode: Double) {
        let child = try ChildProcess(executable: LooplHome.llamaBench,
                                     arguments: ["-m", model, "-t", String(threads), "-p", String(prompt), "-n", String(generate),
                                                 "-r", "1", "-o", "json"], output: .stream)
        var bytes: [UInt8] = []
        for await chunk in child.output { bytes += chunk }
        let status = await child.waitForExit()
        guard status == 0, let rows = try? JSONValue(parsing: bytes).arrayValue else {
            throw LooplError(.processFailed, "llama-bench failed (exit \(status)): \(child.lastLines.suffix(400))")
        }
        var prefill = 0.0, decode = 0.0
        for row in rows {
            let speed = row["avg_ts"]?.doubleValue ?? 0
            if row["n_gen"]?.intValue == 0 { prefill = speed } else { decode = speed }
        }
        return (prefill, decode)
    }
}
