import Foundation
import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload prompt-cache`: the same agent turn (a system prompt of about 1,500
/// tokens and the calculator tool) on a freshly loaded model, then again on another fresh load,
/// then the conversation's next turn on a third, as by three processes (or a model unloaded and
/// loaded again); rows interleaved round by round, on the same model, threads and context:
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
        title: "prompt cache: one agent turn on a fresh load, again on another, then the next turn on a third (medians of the measured rounds)",
        workload: .promptCache, rows: [cached, uncached, server], phases: ["first", "second", "next"], off: uncached, server: server)

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
                return try await Loads { try await LlamaModel.start(loopl(cache)) } turn: { model, messages in
                    try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options)
                }.run(messages)
            },
            Row(name: uncached) { messages, options in
                try await Loads { try await LlamaModel.start(loopl(nil)) } turn: { model, messages in
                    try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options)
                }.run(messages)
            },
            Row(name: Self.server) { messages, options in
                try FileManager.default.createDirectory(atPath: slots, withIntermediateDirectories: true)
                let file = "bench-\(UUID().uuidString).bin"
                var restores = false
                return try await Loads { try await LlamaServerModel.start(server) } turn: { model, messages in
                    let sample = try await CacheSample.measure(model, messages, tools: CacheWorkload.promptCache.tools, options: options) {
                        if restores { try await model.slot(0, .restore, file: file) }
                    }
                    try await model.slot(0, .save, file: file)
                    restores = true
                    return sample
                }.run(messages)
            },
        ]
    }

    /// The three turns of a row, each on a model opened for it and closed after it, as by three
    /// processes: the agent's first turn, the same again, and the conversation's next turn.
    struct Loads<M: Model> {
        let open: () async throws -> M
        let turn: (M, [Message]) async throws -> CacheSample

        /// The samples of the three turns, each with its load's time.
        func run(_ messages: [Message]) async throws -> [CacheSample] {
            var samples: [CacheSample] = []
            for index in 0..<3 {
                let asked = index < 2 ? messages : PromptCacheBench.next(messages, after: samples[1])
                let start = ContinuousClock.now
                let model = try await open()
                let loadMs = (ContinuousClock.now - start).milliseconds
                do {
                    var sample = try await turn(model, asked)
                    sample.loadMs = loadMs
                    samples.append(sample)
                    await model.close()
                } catch {
                    await model.close()
                    throw error
                }
            }
            return samples
        }
    }

    /// The conversation's next turn after `sample`'s answer: the tool's result when it called
    /// one, else a follow-up question.
    static func next(_ messages: [Message], after sample: CacheSample) -> [Message] {
        let calls = sample.reply.toolCalls
        guard !calls.isEmpty else { return messages + [sample.reply, .user("Thank you. Say it again in one short sentence.")] }
        return messages + [sample.reply] + calls.map { .tool(result: "42", callId: $0.id, name: $0.name) }
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
                guard turns.count == 3 else { throw LooplError(.protocolViolation, "\(row.name) ran \(turns.count) turns, not 3.") }
                log("round \(round)\(round > warmup ? "" : " (warm-up)") \(row.name): TTFT \(turns.map { Int($0.ttftMs) }) ms, "
                            + "evaluated \(turns.map(\.evaluatedTokens)) of \(turns.map(\.promptTokens))")
                guard round > warmup else { continue }
                for (phase, turn) in zip(Self.table.phases, turns) { samples[row.name, default: [:]][phase, default: []].append([turn]) }
            }
        }
        return samples
    }

    /// Each row's second TTFT p50 over its first, and its loads' time.
    static func speedups(_ samples: CacheBenchTable.Samples) -> String {
        table.rows.compactMap { row in
            guard let first = CacheBenchTable.ttft(samples[row]?["first"]), let second = CacheBenchTable.ttft(samples[row]?["second"]),
                  first > 0 else { return nil }
            let loads = Quartiles((samples[row] ?? [:]).values.flatMap { $0.flatMap { $0 } }.compactMap(\.loadMs))?.median
            return "\(row): the second load's TTFT is \(String(format: "%.2fx", second / first)) of the first's"
                + (loads.map { String(format: "; a load takes %.0f ms", $0) } ?? "") + "\n"
        }.joined()
    }
}
