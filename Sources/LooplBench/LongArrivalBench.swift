import Foundation
import Loopl
import LooplLlama
import LooplServer

/// `loopl bench --workload long-arrival --concurrency N --arrival-tokens T`: in each round, N
/// streams decode `--max-tokens` each and a prompt of about T tokens arrives once every stream has
/// its first token; the same prompt length alone on the model gives its TTFT without them. Rows
/// interleaved round by round, on the same model, threads and context: Loopl (the `llama`
/// backend, `parallel` N + 1, its inter-token budget), the same with flash attention off, and
/// llama-server (its defaults, `-np` N + 1).
struct LongArrivalBench {
    /// The workload's name for `--workload`.
    package static let name = "long-arrival"
    static let loopl = "loopl", flashOff = "loopl fa off", server = "llama-server"
    /// The rows' names, Loopl's first.
    static let rowNames = [loopl, flashOff, server]

    typealias Row = WorkloadRow

    let rows: [Row]
    let streams: Int
    let arrivalTokens: Int
    let maxTokens: Int
    let runs: Int
    let warmup: Int

    /// The real rows, each with room in its context for the arriving prompt and its answer.
    static func rows(model: String, threads: Int, streams: Int, arrivalTokens: Int, maxTokens: Int) -> [Row] {
        let context = arrivalTokens + maxTokens + 256
        let base = LlamaModel.Configuration(model: model, contextLength: context, threads: threads, parallel: streams + 1, promptCache: false)
        var flashOff = base
        flashOff.flashAttention = .off
        return [
            Row(name: loopl) { try await LlamaModel.start(base) },
            // Faster in small chunks deep in a prompt, but a stream's text then depends on its neighbours (FlashAttention).
            Row(name: Self.flashOff) { [flashOff] in try await LlamaModel.start(flashOff) },
            Row(name: server) {
                try await LlamaServerModel.start(.init(target: .child(model: model), contextLength: context, parallel: streams + 1, threads: threads))
            },
        ]
    }

    /// The table printed, and its rows.
    func run(_ log: Bench.Log) async throws -> (text: String, rows: [BenchRow]) {
        let samples = try await WorkloadRow.running(rows) { try await rounds($0, log) }
        let lines = Self.lines(samples, concurrency: streams)
        return (table(lines), lines)
    }

    private func rounds(_ models: [any Model], _ log: Bench.Log) async throws -> [String: [ArrivalRound]] {
        var samples: [String: [ArrivalRound]] = [:]
        for round in 1...(warmup + runs) {
            for (row, model) in zip(rows, models) {
                let sample = try await self.round(model, round: round)
                let gaps = sample.gaps
                log("round \(round)\(round > warmup ? "" : " (warm-up)") \(row.name): largest gap \(Int(gaps.max() ?? 0)) ms, arrival TTFT "
                    + "\(Int(sample.arrival.ttftMs ?? 0)) ms (\(sample.arrival.promptTokens) tokens; alone \(Int(sample.aloneTTFTMs)) ms), all done \(Int(sample.allDoneMs)) ms")
                if round > warmup { samples[row.name, default: []].append(sample) }
            }
        }
        return samples
    }

    /// The long prompt, opened by what it is for and the round, so that no request starts like
    /// an earlier one and each evaluates its prompt afresh.
    func arrival(_ label: String, round: Int) -> [Message] {
        [.user("\(label), round \(round). " + Bench.filler(tokens: arrivalTokens - 30) + "Summarise.")]
    }

    /// One round on one model: the arriving prompt alone, then beside N streams.
    func round(_ model: any Model, round: Int) async throws -> ArrivalRound {
        let alone = try await Bench.timed { model.generate(messages: arrival("Alone", round: round), tools: [], options: .greedy(maxTokens: 1)) }
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.backend.ignoreEndOfGeneration = true
        let prompts = (round * streams..<(round + 1) * streams).map { "A long story about the \(ConcurrentRound.topic($0)).\n\n" }
        let arriving = arrival("Arriving", round: round)
        let origin = ContinuousClock.now
        let (started, signal) = AsyncStream<Void>.makeStream()
        let timings = try await withThrowingTaskGroup(of: (Int, StreamTiming).self) { group in
            // Completions: each token is an event, where a chat answer holds whitespace back until
            // the next text (the lifting's), which would count the model's line breaks as waits.
            for (index, prompt) in prompts.enumerated() {
                group.addTask { [options] in
                    (index, try await StreamTiming.run(from: origin, started: { signal.yield() }) {
                        model.complete(prompt: prompt, options: options)
                    }.timing)
                }
            }
            var first = 0
            for await _ in started {
                first += 1
                if first == streams { break }
            }
            group.addTask { [options] in
                (prompts.count, try await StreamTiming.run(from: origin) { model.generate(messages: arriving, tools: [], options: options) }.timing)
            }
            var timings: [(Int, StreamTiming)] = []
            for try await timing in group { timings.append(timing) }
            return timings.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return ArrivalRound(streams: Array(timings.dropLast()), arrival: timings[timings.count - 1], aloneTTFTMs: alone.ttftMs)
    }

    /// The rows of the measured rounds, Loopl's compared with llama-server's.
    static func lines(_ samples: [String: [ArrivalRound]], concurrency: Int) -> [BenchRow] {
        let rows = rowNames.compactMap { name in BenchRow(longArrival: name, concurrency: concurrency, rounds: samples[name] ?? []) }
        guard let server = rows.first(where: { $0.name == Self.server }) else { return rows }
        return rows.map { $0.name == Self.server ? $0 : $0.compared(withServer: server) }
    }

    func table(_ lines: [BenchRow]) -> String {
        let widths = [14, 11, 11, 12, 13, 10, 12, 11, 15]
        var out = ["long arrival: \(streams) streams decode \(maxTokens) tokens each, a prompt of about \(arrivalTokens) tokens arrives "
                   + "(gaps over every running stream's tokens of the measured rounds; the other figures their medians)",
                   BenchReport.row(["row", "gap p50 ms", "gap p99 ms", "largest gap", "arrival TTFT", "alone ms", "all done ms",
                                    "TTFT vs srv", "all done vs srv"], widths)]
        for line in lines {
            let ratio = { (value: Double?) in value.map { String(format: "%.2fx", $0) } ?? "-" }
            out.append(BenchReport.row([line.name, BenchReport.fixed(line.interTokenP50Ms), BenchReport.fixed(line.interTokenP99Ms),
                                        BenchReport.fixed(line.interTokenMaxMs), BenchReport.fixed(line.ttftMs?.median),
                                        BenchReport.fixed(line.ttftAloneMs?.median), BenchReport.fixed(line.wallMs?.median),
                                        ratio(line.ttftVsServer), ratio(line.wallVsServer)], widths))
        }
        return out.joined(separator: "\n") + "\n"
    }
}
