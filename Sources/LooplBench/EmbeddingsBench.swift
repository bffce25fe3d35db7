import Foundation
import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload embeddings`: inputs embedded per second, 32 short texts a round sent
/// one per call (batch 1) and all in one call (batch 32), on Loopl (the `llama` backend's
/// embeddings) and on llama-server `--embeddings --pooling mean` (Loopl's `server` backend with
/// `"embeddings": true`), on the same model, threads and context, interleaved round by round.
struct EmbeddingsBench {
    /// The workload's name for `--workload`.
    package static let name = "embeddings"
    static let loopl = "loopl", server = "llama-server"
    /// The inputs of one call.
    static let batches = [1, 32]
    /// Each input's context.
    static let context = 512

    let rows: [WorkloadRow]
    let runs: Int
    let warmup: Int

    /// The real rows: each engine with 4 sequences or slots, as llama-server's default.
    static func rows(model: String, threads: Int) -> [WorkloadRow] {
        [
            WorkloadRow(name: loopl) {
                var configuration = LlamaModel.Configuration(model: model, contextLength: context, threads: threads, promptCache: false)
                configuration.pooling = .mean
                return try await LlamaModel.start(configuration)
            },
            WorkloadRow(name: server) {
                var configuration = LlamaServerModel.Configuration(target: .child(model: model), contextLength: context, threads: threads)
                configuration.embeddings = true
                configuration.pooling = .mean
                return try await LlamaServerModel.start(configuration)
            },
        ]
    }

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let samples = try await WorkloadRow.running(rows) { models in
            var samples: [String: [Int: [Double]]] = [:]
            for round in 1...(warmup + runs) {
                for (row, model) in zip(rows, models) {
                    for batch in Self.batches {
                        let rate = try await Self.inputsPerSecond(model, batch: batch, round: round)
                        log("round \(round)\(round > warmup ? "" : " (warm-up)") \(row.name) batch \(batch): \(String(format: "%.1f", rate)) inputs/s")
                        if round > warmup { samples[row.name, default: [:]][batch, default: []].append(rate) }
                    }
                }
            }
            return samples
        }
        let lines = Self.lines(samples)
        return (Self.table(lines), lines)
    }

    /// 32 texts of about 20 tokens, other ones each round, embedded `batch` at a time.
    static func inputsPerSecond(_ model: any Model, batch: Int, round: Int) async throws -> Double {
        let texts = (0..<32).map { "Text \($0) of round \(round): the quick brown fox jumps over the lazy dog beside the river at dawn." }
        let start = ContinuousClock.now
        for first in stride(from: 0, to: texts.count, by: batch) {
            _ = try await model.embeddings(Array(texts[first..<min(first + batch, texts.count)]))
        }
        return Double(texts.count) / max((ContinuousClock.now - start).seconds, 1e-9)
    }

    /// A row per engine and batch, Loopl's compared with llama-server's at the same batch.
    static func lines(_ samples: [String: [Int: [Double]]]) -> [BenchRow] {
        batches.flatMap { batch -> [BenchRow] in
            let server = samples[Self.server]?[batch].flatMap(Spread.init)
            return [loopl, Self.server].compactMap { name -> BenchRow? in
                guard let spread = samples[name]?[batch].flatMap(Spread.init) else { return nil }
                var row = BenchRow(name: name, workload: .embeddings, concurrency: batch)
                row.inputsPerSecond = spread
                if name == loopl, let server { row.inputsVsServer = spread.median / server.median }
                return row
            }
        }
    }

    static func table(_ lines: [BenchRow]) -> String {
        let widths = [14, 7, 14, 10, 10, 10]
        var out = ["embeddings: 32 texts of about 20 tokens a round, one per call (batch 1) or all in one (batch 32); inputs per second, "
                   + "median, min and max over the measured rounds",
                   BenchReport.row(["row", "batch", "inputs/s", "min", "max", "vs srv"], widths)]
        for line in lines {
            out.append(BenchReport.row([line.name, String(line.concurrency), BenchReport.fixed(line.inputsPerSecond?.median),
                                        BenchReport.fixed(line.inputsPerSecond?.min), BenchReport.fixed(line.inputsPerSecond?.max),
                                        line.inputsVsServer.map { String(format: "%.2fx", $0) } ?? "-"], widths))
        }
        return out.joined(separator: "\n") + "\n"
    }
}
