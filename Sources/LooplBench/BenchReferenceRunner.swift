import Loopl
import LooplServer

/// How `loopl bench` runs its references: a command line for llama-bench or
/// llama-batched-bench in, the tool's standard output out. ``pinned`` runs the pinned binaries;
/// tests give stand-ins that record the command lines.
struct BenchReferenceRunner: Sendable {
    var llamaBench: @Sendable ([String]) async throws -> String
    var batchedBench: @Sendable ([String]) async throws -> String

    /// The pinned llama.cpp's `llama-bench` and `llama-batched-bench`.
    static let pinned = BenchReferenceRunner(
        llamaBench: { try await run(LlamaCppInstall.bench, $0, name: "llama-bench") },
        batchedBench: { try await run(LlamaCppInstall.batchedBench, $0, name: "llama-batched-bench") })

    /// The most output kept of one run; a reference prints a few lines.
    static let outputLimit = 1 << 22

    /// Runs `executable` with `arguments` to its end; its output, or `processFailed` when it
    /// exits with a status other than 0.
    private static func run(_ executable: String, _ arguments: [String], name: String) async throws -> String {
        let child = try ChildProcess(executable: executable, arguments: arguments, output: .stream)
        var bytes: [UInt8] = []
        for await chunk in child.output where bytes.count + chunk.count <= outputLimit { bytes += chunk }
        let status = await child.waitForExit()
        guard status == 0 else {
            throw LooplError(.processFailed, "\(name) failed (exit \(status)): \(child.lastLines.suffix(400))")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
