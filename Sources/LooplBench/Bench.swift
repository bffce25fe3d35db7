import Foundation
import Loopl
import LooplServer


/// One run of `loopl bench`: the backends side by side against llama-bench, interleaved run by
/// run, or one of its other modes (``concurrency``, ``agent``, a workload). `loopl bench` fills it
/// from its arguments and runs it in process.
package struct Bench: Sendable {
    /// Where progress goes, one line at a time (`loopl bench` writes it to standard error).
    package typealias Log = @Sendable (String) -> Void

    package var backends = ["llama"]
    package var runs = 5
    package var warmup = 1
    /// The long prompt for prefill; nil for a filler prompt of about ``promptTokens`` tokens.
    package var prompt: String?
    package var promptTokens = 512
    package var maxTokens = 128
    package var threads = 2
    package var model = LooplHome.defaultModel
    /// The chat template of every backend (a built-in name or a file); nil keeps each one's.
    package var chatTemplate: String?
    package var agent = false
    /// The stream counts of `--concurrency`, ascending; empty without it.
    package var concurrency: [Int] = []
    /// The name and source of the chat template of the thinking replay (`--think-template`).
    package var thinkTemplate: (name: String, source: String)?
    package var jsonPath: String?
    package var svgPath: String?
    package var reference = true
    /// True when `--prompt-tokens` was given: `--concurrency` pads each stream's prompt to it.
    package var paddedStreams = false
    /// The speculative decoding workload of `--workload`.
    package var workload: SpeculationWorkload?
    /// The shared-prefix or prompt-cache workload of `--workload`.
    package var cacheWorkload: CacheWorkload?
    /// The arriving prompt's tokens of `--workload long-arrival`; nil for another workload.
    package var arrivalTokens: Int?
    /// The name of the long-arrival workload for `--workload`.
    package static let longArrival = LongArrivalBench.name
    /// The name of the forced-call workload for `--workload`.
    package static let forcedCall = ForcedCallBench.name
    /// True for `--workload forced-call`.
    package var forcedCall = false
    /// Whether `--workload embeddings` was asked for.
    package var embeddings = false
    /// The name of the embeddings workload for `--workload`.
    package static let embeddingsWorkload = EmbeddingsBench.name
    /// How the references run: the pinned binaries.
    var referenceRunner = BenchReferenceRunner.pinned

    package init() {}

    /// Runs the bench on the backends of the configuration that `configuration` reads (with the
    /// kinds it was read with; a workload reads none); the tables and goals for standard output,
    /// after writing ``jsonPath`` and ``svgPath``.
    package func run(log: @escaping Log,
                     configuration: () throws -> (config: LooplConfig, kinds: [BackendKind])) async throws -> String {
        var report = BenchReport(model: (model as NSString).lastPathComponent,
                                 cores: ProcessInfo.processInfo.activeProcessorCount, llamaCppVersion: LlamaCppInstall.version,
                                 threads: threads, promptTokens: promptTokens, maxTokens: maxTokens, runs: runs, warmup: warmup)
        report.concurrency = concurrency
        if workload != nil || cacheWorkload != nil || arrivalTokens != nil || forcedCall || embeddings {
            let (text, rows) = try await runWorkload(log)
            report.rows = rows
            try writeJSON(report)
            let goals = BenchGoal.table(BenchGoal.goals(for: report))
            return goals.isEmpty ? text : text + "\n" + goals
        }
        // Each round evaluates its prompt: no backend, nor the workers it starts, loads it from disk.
        setenv("LOOPL_PROMPT_CACHE", "0", 1)
        let loaded = try configuration()
        var config = loaded.config
        try config.apply(BackendOverrides(model: model, threads: threads, chatTemplate: chatTemplate))
        if let most = concurrency.max(), most > Self.defaultParallel {
            config = Self.raisingParallel(config, to: most, for: backends, kinds: loaded.kinds, warn: log)
        }
        let router = Router(config: config)
        for name in backends { _ = try config.backend(name) }
        var out = ""
        if let thinkTemplate {
            let steps = try await ReasoningReplay.run(template: thinkTemplate.source, model: model, reasoning: .auto)
            out += ReasoningReplay.table(steps, name: thinkTemplate.name) + "\n"
            report.rows = ReasoningReplay.agentSteps(steps)
        } else if agent {
            try await runAgent(router: router, report: &report, log: log)
        } else if !concurrency.isEmpty {
            try await runThroughput(router: router, report: &report, log: log)
        } else {
            try await runSpeed(router: router, report: &report, log: log)
        }
        out += report.table
        let goals = BenchGoal.table(BenchGoal.goals(for: report))
        if !goals.isEmpty { out += "\n" + goals }
        try writeJSON(report)
        if let svgPath { try write(BenchChart.svg(report), to: svgPath) }
        return out
    }

    /// `--workload`: its table, and its rows.
    private func runWorkload(_ log: @escaping Log) async throws -> (text: String, rows: [BenchRow]) {
        if let cacheWorkload { return try await runCache(cacheWorkload, log) }
        if forcedCall { return try await ForcedCallBench(model: model, threads: threads, runs: runs, warmup: warmup).run(log) }
        if embeddings {
            return try await EmbeddingsBench(rows: EmbeddingsBench.rows(model: model, threads: threads), runs: runs, warmup: warmup).run(log)
        }
        if let arrivalTokens {
            let streams = concurrency.last ?? 3
            let rows = LongArrivalBench.rows(model: model, threads: threads, streams: streams, arrivalTokens: arrivalTokens, maxTokens: maxTokens)
            return try await LongArrivalBench(rows: rows, streams: streams, arrivalTokens: arrivalTokens, maxTokens: maxTokens,
                                              runs: runs, warmup: warmup).run(log)
        }
        guard let workload else { return ("", []) }
        return try await SpeculationBench(workload: workload, model: model, threads: threads, maxTokens: maxTokens, runs: runs,
                                          warmup: warmup, conversations: concurrency.last ?? 1).run(log)
    }

    func runSpeed(router: Router, report: inout BenchReport, log: Log) async throws {
        // About ten tokens a sentence, and about forty for the template: just under --prompt-tokens.
        let filler = Self.filler(tokens: promptTokens - 40)
        let longPrompt: [Message] = [.user(prompt ?? filler + "Summarise.")]
        let shortPrompt: [Message] = [.user("Tell me a long story about a fox.")]
        var prefillOptions = GenerationOptions.greedy(maxTokens: 1)
        prefillOptions.backend.ignoreEndOfGeneration = true
        var decodeOptions = GenerationOptions.greedy(maxTokens: maxTokens)
        decodeOptions.backend.ignoreEndOfGeneration = true
        var samples: [String: [BenchSample]] = [:]
        var referenceSamples: [(prefill: Double, decode: Double)] = []
        var measuredPromptTokens = promptTokens
        var decodeDepth = 0
        let referenceSettings = LlamaBenchReference.Settings(section: try? router.config.backend(BenchGoal.inProcess).section)
        for step in BenchPlan(backends: backends, warmup: warmup, runs: runs, reference: reference).steps {
            let label = "round \(step.round)\(step.measured ? "" : " (warm-up)")"
            switch step.target {
            case .backend(let name):
                let start = ContinuousClock.now
                let backend = try await router.model(named: name)
                _ = try await backend.contextSize  // a backend that starts lazily starts here
                let startup = (ContinuousClock.now - start).milliseconds
                let prefill = try await Self.streamed { backend.generate(messages: longPrompt, tools: [], options: prefillOptions) }
                let decode = try await Self.streamed { backend.generate(messages: shortPrompt, tools: [], options: decodeOptions) }
                let host = Double(ProcessWatch.residentKilobytes()) / 1024
                let children = Double(ProcessWatch.descendants().map { ProcessWatch.residentKilobytes(of: $0) }.reduce(0, +)) / 1024
                await backend.close()
                let evaluated = prefill.metrics.promptTokens - prefill.metrics.cachedPromptTokens
                measuredPromptTokens = prefill.metrics.promptTokens
                decodeDepth = decode.metrics.promptTokens
                let sample = BenchSample(startupMs: startup, prefill: prefill.timing, promptEvalMs: prefill.metrics.promptEvalMs,
                                         decode: decode.timing, engineDecode: decode.metrics.tokensPerSecond,
                                         hostRSSMiB: host, childRSSMiB: children)
                if step.measured { samples[name, default: []].append(sample) }
                log("\(label) \(name): TTFT \(Int(sample.ttftMs)) ms (\(evaluated) tokens, \(Int(sample.prefillTokensPerSecond)) tok/s), decode \(String(format: "%.1f", sample.decodeTokensPerSecond)) tok/s"
                            + " (engine's own \(sample.engineDecodeTokensPerSecond.map { String(format: "%.1f", $0) } ?? "-"))")
            case .reference:
                let speeds = try await LlamaBenchReference.measure(model: model, threads: threads, prompt: measuredPromptTokens,
                                                                   generate: maxTokens, depth: decodeDepth, settings: referenceSettings,
                                                                   runner: referenceRunner)
                if step.measured { referenceSamples.append(speeds) }
                log("\(label) llama-bench: prefill \(Int(speeds.prefill)) tok/s, decode \(String(format: "%.1f", speeds.decode)) tok/s")
            }
        }
        report.promptTokens = measuredPromptTokens
        addSpeedRows(samples, reference: referenceSamples, to: &report)
    }

    /// The speed report's rows: llama-bench's and each backend's, from their measured rounds.
    private func addSpeedRows(_ samples: [String: [BenchSample]], reference referenceSamples: [(prefill: Double, decode: Double)],
                              to report: inout BenchReport) {
        var reference: BenchRow?
        if let prefill = Spread(referenceSamples.map(\.prefill)), let decode = Spread(referenceSamples.map(\.decode)) {
            var row = BenchRow(name: BenchRow.speedReference, workload: .speed)
            (row.prefillTokensPerSecond, row.decodeTokensPerSecond) = (prefill, decode)
            (row.prefillByRound, row.decodeByRound) = (referenceSamples.map(\.prefill), referenceSamples.map(\.decode))
            reference = row
        }
        for name in backends {
            guard let row = BenchRow(backend: name, samples: samples[name] ?? []) else { continue }
            report.rows.append(reference.map(row.compared(with:)) ?? row)
        }
        if let reference { report.rows.append(reference) }
    }

    /// Runs a generation to its end: its final metrics, and when each content event reached the host.
    static func streamed(_ generate: () -> AsyncThrowingStream<ModelEvent, any Error>) async throws -> (metrics: Metrics, timing: StreamTiming) {
        try await StreamTiming.run(from: .now, generate)
    }

    /// Runs a generation to its end: its final metrics, and the TTFT as the host sees it.
    static func timed(_ generate: () -> AsyncThrowingStream<ModelEvent, any Error>) async throws -> (metrics: Metrics, ttftMs: Double) {
        let start = ContinuousClock.now
        let stream = generate()
        var first: ContinuousClock.Instant?
        var last: Metrics?
        for try await event in stream {
            switch event {
            case .text, .reasoning, .toolCall: if first == nil { first = .now }
            case .metrics(let metrics): last = metrics
            }
        }
        guard let last, last.finished else { throw LooplError(.protocolViolation, "The backend sent no final metrics.") }
        return (last, ((first ?? .now) - start).milliseconds)
    }

    /// Writes `report` to ``jsonPath``, when given.
    private func writeJSON(_ report: BenchReport) throws {
        if let jsonPath { try write(report.json.jsonText(style: .python) + "\n", to: jsonPath) }
    }

    package func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw LooplError(.io, "Cannot write \(path): \(error.localizedDescription).", underlying: error)
        }
    }
}
