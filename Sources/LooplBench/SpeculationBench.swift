import Foundation
import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload copy|free`: decode with prompt-lookup drafting, in rounds over six
/// rows loaded side by side (Loopl drafting, Loopl with `speculative: {"type": "none"}` and the
/// same `q8_0` keys, Loopl without drafting and with its default `f16` keys, llama-server with
/// `--spec-type ngram-simple` and its default keys or the drafting row's, and Loopl drafting
/// where every draft fails at its first token), on the same model, threads and context. Speed is
/// host-seen: generated tokens after the first over the time from the first to the last event,
/// summed over the conversations when several run at once (`--concurrency N`, each row then
/// serving N at once).
struct SpeculationBench {
    /// One request's outcome.
    struct Sample: Sendable {
        var tokensPerSecond: Double
        var drafted: Int
        var accepted: Int
        var text: String
    }

    static let rows = ["loopl ngram", "loopl none", "loopl none, f16 keys", "llama-server ngram-simple",
                       "llama-server, q8_0 keys", "loopl ngram, drafts fail"]
    /// The llama-server rows' indices: its default keys, and the drafting row's `q8_0` keys.
    static let server = 3, serverSameKeys = 4
    /// The row whose drafts all fail.
    static let failing = 5

    let workload: SpeculationWorkload
    let model: String
    let threads: Int
    let maxTokens: Int
    let runs: Int
    let warmup: Int
    /// Conversations at once.
    var conversations = 1
    /// Each conversation's context length.
    let context = 2048

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let backends = try await start()
        do {
            let samples = try await rounds(backends, log)
            for backend in backends { await backend.close() }
            return (Self.table(samples, workload: workload, conversations: conversations),
                    Self.results(samples, workload: workload, conversations: conversations))
        } catch {
            for backend in backends { await backend.close() }
            throw error
        }
    }

    private func rounds(_ backends: [any Model], _ log: Bench.Log) async throws -> [[Sample]] {
        var samples = Array(repeating: [Sample](), count: backends.count)
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.backend.ignoreEndOfGeneration = true
        for round in 1...(warmup + runs) {
            // Each round starts at the next row, so that no row always follows the same one.
            for offset in 0..<backends.count {
                let index = (round + offset) % backends.count, backend = backends[index]
                let sample = try await measure(backend, options)
                log("round \(round)\(round > warmup ? "" : " (warm-up)") \(Self.rows[index]): \(String(format: "%.1f", sample.tokensPerSecond)) tok/s, \(sample.accepted)/\(sample.drafted) drafted tokens accepted")
                if round > warmup { samples[index].append(sample) }
            }
        }
        return samples
    }

    /// How a row's model is made: in process with these drafts and keys (nil: the default for the
    /// drafts), or a llama-server child with `--spec-type ngram-simple` and these arguments.
    private enum Engine {
        case loopl(Speculation, CacheType?)
        case server([String])
    }

    /// The engines of ``rows``, in their order.
    private static var engines: [Engine] {
        var spoiling = Speculation(kind: .ngram)
        spoiling.spoilsDrafts = true
        return [.loopl(Speculation(kind: .ngram), nil), .loopl(.none, .q8_0), .loopl(.none, nil),
                .server([]), .server(["--cache-type-k", "q8_0"]), .loopl(spoiling, nil)]
    }

    /// Every row's model; those started are closed when one fails to start.
    private func start() async throws -> [any Model] {
        var models: [any Model] = []
        do {
            for engine in Self.engines { models.append(try await open(engine)) }
            return models
        } catch {
            for model in models { await model.close() }
            throw error
        }
    }

    private func open(_ engine: Engine) async throws -> any Model {
        switch engine {
        case .loopl(let speculative, let keys):
            try await LlamaModel.start(.init(model: model, contextLength: context, threads: threads, parallel: conversations,
                                             speculative: speculative, cacheTypeK: keys))
        case .server(let arguments):
            try await LlamaServerModel.start(.init(target: .child(model: model), contextLength: context, parallel: conversations,
                                                   threads: threads, extraArguments: ["--spec-type", "ngram-simple"] + arguments))
        }
    }

    /// The conversations sent at once to `backend`, their speeds and counts summed and their
    /// texts joined.
    private func measure(_ backend: any Model, _ options: GenerationOptions) async throws -> Sample {
        let count = conversations, workload = workload
        let samples = try await withThrowingTaskGroup(of: (Int, CacheSample).self) { group in
            for index in 0..<count {
                group.addTask { (index, try await CacheSample.measure(backend, workload.messages(index, of: count), tools: [], options: options)) }
            }
            var samples: [Int: CacheSample] = [:]
            for try await (index, sample) in group { samples[index] = sample }
            return (0..<count).compactMap { samples[$0] }
        }
        return Sample(tokensPerSecond: samples.map(\.decodeTokensPerSecond).reduce(0, +), drafted: samples.map(\.draftTokens).reduce(0, +),
                      accepted: samples.map(\.acceptedDraftTokens).reduce(0, +), text: samples.map(\.text).joined(separator: "\n\n"))
    }

    /// Each row's decode speed over the measured rounds, its drafted and accepted tokens, and the
    /// ratios of its median to Loopl's without drafting and to llama-server's.
    static func results(_ samples: [[Sample]], workload: SpeculationWorkload, conversations: Int = 1) -> [BenchRow] {
        let medians = samples.map { list in Spread(list.map(\.tokensPerSecond))?.median ?? 0 }
        func ratio(_ index: Int, over other: Int) -> Double? { medians[other] > 0 ? medians[index] / medians[other] : nil }
        return samples.enumerated().map { index, list in
            let table: BenchRow.Workload = switch workload { case .copy: .copy; case .free: .free }
            var row = BenchRow(name: rows[index], workload: table, concurrency: conversations)
            (row.decodeTokensPerSecond, row.decodeByRound) = (Spread(list.map(\.tokensPerSecond)), list.map(\.tokensPerSecond))
            (row.draftedTokens, row.acceptedDraftTokens) = (list.map(\.drafted).reduce(0, +), list.map(\.accepted).reduce(0, +))
            (row.decodeVsOff, row.decodeVsServer) = (ratio(index, over: 1), ratio(index, over: server))
            row.decodeVsServerSameKeys = ratio(index, over: serverSameKeys)
            return row
        }
    }

    /// The rows' medians, ratios to Loopl without drafting and to llama-server, and whether the
    /// Loopl rows wrote the same text.
    static func table(_ samples: [[Sample]], workload: SpeculationWorkload, conversations: Int = 1) -> String {
        let together = conversations > 1 ? ", \(conversations) conversations at once (summed)" : ""
        var lines = ["speculative decoding, workload \(workload.rawValue)\(together): host-seen decode tok/s (median), drafted tokens accepted, ratios"]
        lines.append("row                        decode tok/s  accepted/drafted  vs loopl none  vs llama-server  vs its q8_0 keys")
        for row in results(samples, workload: workload, conversations: conversations) {
            let ratios = [row.decodeVsOff, row.decodeVsServer, row.decodeVsServerSameKeys].map { $0.map { String(format: "%.2fx", $0) } ?? "-" }
            lines.append([row.name.column(26), String(format: "%.1f", row.decodeTokensPerSecond?.median ?? 0).column(13),
                          "\(row.acceptedDraftTokens ?? 0)/\(row.draftedTokens ?? 0)".column(17), ratios[0].column(14), ratios[1].column(15),
                          ratios[2]].joined(separator: " "))
        }
        for drafting in [0, Self.failing] {
            let differing = zip(samples[drafting], samples[1]).filter { $0.text != $1.text }
            lines.append("\(rows[drafting]) and loopl none wrote \(differing.isEmpty ? "the same text in every round" : "DIFFERENT text in \(differing.count) of \(samples[0].count) rounds")")
            if let (drafted, plain) = differing.first { lines.append(Self.firstDifference(drafted.text, plain.text)) }
        }
        for server in [Self.server, Self.serverSameKeys] {
            let same = zip(samples[0], samples[server]).count { $0.text == $1.text }
            lines.append("\(rows[server]) wrote loopl ngram's text in \(same) of \(samples[0].count) rounds")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where two answers part: the character offset, the text before it, and each one's next words.
    static func firstDifference(_ drafting: String, _ plain: String) -> String {
        let common = zip(drafting, plain).prefix { $0 == $1 }.count
        let before = String(drafting.prefix(common).suffix(60)), show = { (text: String) in String(text.dropFirst(common).prefix(40)) }
        return "first difference at character \(common) of \(plain.count), after \"…\(before)\": ngram \"\(show(drafting))\", none \"\(show(plain))\""
    }
}
