import Foundation
import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload prompt-cache`: the same agent turn (a system prompt of about 1,500
/// tokens and the calculator tool) on a freshly loaded model, then again on another fresh load,
/// as by two processes; rows interleaved round by round, on the same model, threads and context:
/// Loopl with its prompt cache on disk (a new folder each round), Loopl with `promptCache:
/// false`, and llama-server saving slot 0 after the first turn (`--slot-save-path`, `POST
/// /slots/0?action=save`) and restoring it into the second child before its turn (the restore
/// counts in that TTFT).
struct PromptCacheBench {
    /// A backend the workload runs on: both turns of a round, on two fresh loads.
    struct Row: Sendable {
        let name: String
        let turns: @Sendable (_ messages: [Message], _ options: GenerationOptions) async throws -> [CacheSample]
    }

    static let cached = "loopl prompt cache", uncached = "loopl no cache", server = "llama-server slot restore"
    static let context = 2048

    static let table = CacheBenchTable(
        title: "prompt cache: one agent turn on a fresh load, then again on another (medians of the measured rounds)",
        workload: .promptCache, rows: [cached, uncached, server], phases: ["first", "second"], off: uncached, server: server)

    let rows: [Row]
    let runs: Int
    let warmup: Int
    let maxTokens: Int

    /// The real rows; `folder` holds each round's cache and slot files.
    static func rows(model: String, threads: Int, folder: String) -> [Row] {
        let loopl: @Sendable (String?) -> LlamaModel.Configuration = { cache in
            LlamaModel.Configuration(model: model, contextLength: context, threads: threads, parallel: 1,
                                     promptCache: cache != nil, promptCacheDirectory: cache)
        }
        let slots = folder + "/slots"
        let server = LlamaServerModel.Configuration(target: .child(model: model), contextLength: context, parallel: 1,
                                                    threads: threads, extraArguments: ["--slot-save-path", slots])
        return [
            Row(name: cached) { messages, options in
                let cache = folder + "/cache-" + UUID().uuidString
                return try await twice { try await LlamaModel.start(loopl(cache)) } turn: { model, _ in
                    try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options)
                }
            },
            Row(name: uncached) { messages, options in
                try await twice { try await LlamaModel.start(loopl(nil)) } turn: { model, _ in
                    try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options)
                }
            },
            Row(name: Self.server) { messages, options in
                try FileManager.default.createDirectory(atPath: slots, withIntermediateDirectories: true)
                let file = "bench-\(UUID().uuidString).bin"
                return try await twice { try await LlamaServerModel.start(server) } turn: { model, second in
                    let sample = try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options) {
                        if second { try await model.slot(0, .restore, file: file) }
                    }
                    if !second { try await model.slot(0, .save, file: file) }
                    return sample
                }
            },
        ]
    }

    /// Opens a model, runs the first turn and closes it, then the same on a second model.
    static func twice<M: Model>(_ open: () async throws -> M, turn: (M, _ second: Bool) async throws -> CacheSample) async throws -> [CacheSample] {
        var samples: [CacheSample] = []
        for second in [false, true] {
            let model = try await open()
            do {
                samples.append(try await turn(model, second))
                await model.close()
            } catch {
                await model.close()
                throw error
            }
        }
        return samples
    }

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let samples = try await rounds(log)
        return (Self.table.text(samples, sameTextRows: [Self.cached]) + Self.speedups(samples), Self.table.lines(samples))
    }

    func rounds(_ log: Bench.Log) async throws -> CacheBenchTable.Samples {
        let options = GenerationOptions.greedy(maxTokens: maxTokens)
        var samples: CacheBenchTable.Samples = [:]
        for round in 1...(warmup + runs) {
            let messages = CacheWorkload.promptCache.messages(round: round, index: 0)
            for row in rows {
                let turns = try await row.turns(messages, options)
                guard turns.count == 2 else { throw LooplError(.protocolViolation, "\(row.name) ran \(turns.count) turns, not 2.") }
                log("round \(round)\(round > warmup ? "" : " (warm-up)") \(row.name): TTFT \(turns.map { Int($0.ttftMs) }) ms, "
                            + "evaluated \(turns.map(\.evaluatedTokens)) of \(turns.map(\.promptTokens))")
                guard round > warmup else { continue }
                samples[row.name, default: [:]]["first", default: []].append([turns[0]])
                samples[row.name, default: [:]]["second", default: []].append([turns[1]])
            }
        }
        return samples
    }

    /// Each row's second TTFT p50 over its first.
    static func speedups(_ samples: CacheBenchTable.Samples) -> String {
        table.rows.compactMap { row in
            guard let first = CacheBenchTable.ttft(samples[row]?["first"]), let second = CacheBenchTable.ttft(samples[row]?["second"]),
                  first > 0 else { return nil }
            return "\(row): the second load's TTFT is \(String(format: "%.2fx", second / first)) of the first's\n"
        }.joined()
    }
}
