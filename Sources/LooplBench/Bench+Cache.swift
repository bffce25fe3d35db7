import Foundation
import Loopl

extension Bench {
    /// `--workload shared-prefix|prompt-cache`: the workload's rows side by side, round by round.
    func runCache(_ workload: CacheWorkload, _ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        switch workload {
        case .sharedPrefix:
            let rows = SharedPrefixBench.rows(model: model, threads: threads)
            return try await SharedPrefixBench(rows: rows, runs: runs, warmup: warmup, maxTokens: maxTokens).run(log)
        case .promptCache:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-bench-cache-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let rows = PromptCacheBench.rows(model: model, threads: threads, folder: folder)
            return try await PromptCacheBench(rows: rows, runs: runs, warmup: warmup, maxTokens: maxTokens).run(log)
        }
    }
}
