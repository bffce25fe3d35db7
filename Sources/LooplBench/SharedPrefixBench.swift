import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload shared-prefix`: in each round, 4 conversations with the same system
/// prompt of about 1,000 tokens and short questions of their own start together, then 4 more
/// start one after another; rows interleaved round by round, on the same model, threads and
/// context: Loopl sharing prefixes, Loopl with `sharePrefixes: false`, and llama-server with
/// `-np 4` and its prompt cache in host memory (`--cache-ram`), or with one unified KV (`-kvu`).
struct SharedPrefixBench {
    typealias Row = WorkloadRow

    static let shared = "loopl shared", unshared = "loopl unshared"
    static let cacheRAM = "llama-server --cache-ram", unified = "llama-server -kvu"
    /// The conversations that start together, and then one after another.
    static let streams = 4
    /// Each conversation's context length.
    static let context = 2048
    /// llama-server's bounded prompt cache in host memory, in MiB.
    static let cacheMiB = 256

    static let table = CacheBenchTable(
        title: "shared prefix: 4 conversations with one system prompt start together, then 4 one after another (medians of the measured rounds)",
        workload: .sharedPrefix, rows: [shared, unshared, cacheRAM, unified], phases: ["together", "after"], off: unshared, server: cacheRAM)

    let rows: [Row]
    let runs: Int
    let warmup: Int
    let maxTokens: Int

    /// The real rows: two in-process models (weights loaded for each), and two llama-server children.
    static func rows(model: String, threads: Int) -> [Row] {
        let loopl: @Sendable (Bool) -> LlamaModel.Configuration = { share in
            LlamaModel.Configuration(model: model, contextLength: context, threads: threads, parallel: streams,
                                     sharePrefixes: share, promptCache: false)
        }
        let server: @Sendable ([String]) -> LlamaServerModel.Configuration = { extra in
            LlamaServerModel.Configuration(target: .child(model: model), contextLength: context, parallel: streams,
                                           threads: threads, extraArguments: extra)
        }
        return [
            Row(name: shared) { try await LlamaModel.start(loopl(true)) },
            Row(name: unshared) { try await LlamaModel.start(loopl(false)) },
            Row(name: cacheRAM) { try await LlamaServerModel.start(server(["--cache-ram", String(cacheMiB)])) },
            Row(name: unified) { try await LlamaServerModel.start(server(["-kvu"])) },
        ]
    }

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let samples = try await WorkloadRow.running(rows) { try await rounds($0, log) }
        return (Self.table.text(samples, sameTextRows: [Self.shared]), Self.table.lines(samples))
    }

    func rounds(_ models: [any Model], _ log: Bench.Log) async throws -> CacheBenchTable.Samples {
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.backend.ignoreEndOfGeneration = true
        var samples: CacheBenchTable.Samples = [:]
        for round in 1...(warmup + runs) {
            for (row, model) in zip(rows, models) {
                let phases = try await Self.round(model, round: round, options: options)
                let evaluated = phases.mapValues { $0.map(\.evaluatedTokens) }
                log("round \(round)\(round > warmup ? "" : " (warm-up)") \(row.name): evaluated together \(evaluated["together"] ?? []), "
                            + "after \(evaluated["after"] ?? [])")
                guard round > warmup else { continue }
                for (phase, list) in phases { samples[row.name, default: [:]][phase, default: []].append(list) }
            }
        }
        return samples
    }

    /// One round on one model: the requests that started together, in conversation order, and
    /// those that started one after another.
    static func round(_ model: any Model, round: Int, options: GenerationOptions) async throws -> [String: [CacheSample]] {
        let workload = CacheWorkload.sharedPrefix
        let together = try await withThrowingTaskGroup(of: (Int, CacheSample).self) { group in
            for index in 0..<streams {
                var own = options
                own.conversation = "shared-prefix-\(round)-\(index)"
                group.addTask { [own] in
                    (index, try await CacheSample.measure(model, workload.messages(round: round, index: index), tools: [], options: own))
                }
            }
            var all: [(Int, CacheSample)] = []
            for try await sample in group { all.append(sample) }
            return all.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var after: [CacheSample] = []
        for index in streams..<(2 * streams) {
            var own = options
            own.conversation = "shared-prefix-\(round)-\(index)"
            after.append(try await CacheSample.measure(model, workload.messages(round: round, index: index), tools: [], options: own))
        }
        return ["together": together, "after": after]
    }
}
