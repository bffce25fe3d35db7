import Foundation
import Loopl
import LooplServer

/// `loopl bench`: the backends side by side against llama-bench, interleaved run by run.
struct BenchCommand: Command {
    static let name = "bench"
    static let abstract = "Compare the backends' speed on one model, against llama-bench."
    static let help = """
        Measure each backend on the same model with greedy sampling and a fixed seed, interleaving
        the backends run by run so that drift on a shared machine hits all alike, next to the pinned
        llama-bench with the same model, threads and token counts. Prefill is timed on the long
        prompt (one token generated); decode on a short prompt, --max-tokens generated regardless of
        end-of-generation. Startup is load or spawn until ready; overhead is the TTFT minus the
        engine's own time on the prompt. With --concurrency, N conversations start together on one
        model for each N instead (different prompts of one length), against llama-batched-bench at
        the same N: their aggregate decode speed (all tokens generated from the moment every stream
        has its first token to the end, over that time), each stream's speed, TTFT and inter-token
        latency. With --agent, a fixed conversation of tool calls and results is replayed on each
        backend instead (with --concurrency, that many at once, interleaved), showing per iteration
        how many prompt tokens were evaluated and how many reused from the cache; with
        --think-template, the conversation of a model that thinks before each call is run by an
        agent on the prompts that template renders, counted with the model's tokenizer as the
        in-process cache reuses them. Each ratio comes with the interquartile range of its per-round
        ratios. Under the table, each speed goal of docs/bench.md that the run has a figure for,
        with MISSED beside those not met.

        USAGE: loopl bench [--backends LIST] [--config FILE] [--runs N] [--warmup N]
                           [--prompt TEXT | --prompt-tokens N] [--max-tokens N] [-t N] [-m FILE]
                           [--concurrency LIST] [--agent [--think-template FILE]] [--json FILE]
                           [--svg FILE] [--no-reference]
                           [--workload copy|free|shared-prefix|prompt-cache]

        OPTIONS:
        \(CLIOption.help(options))

        """

    static let options = BenchOptions.all + [CLIOption.showHelp]

    var backends: [String]
    var config: String?
    var runs: Int
    var warmup: Int
    var prompt: String?
    var promptTokens: Int
    var maxTokens: Int
    var threads: Int
    var model: String
    var agent: Bool
    /// The stream counts of `--concurrency`, ascending; empty without it.
    var concurrency: [Int]
    /// The chat template of the thinking replay (`--think-template`).
    var thinkTemplate: String?
    var jsonPath: String?
    var svgPath: String?
    var reference: Bool
    /// True when `--prompt-tokens` was given: `--concurrency` pads each stream's prompt to it.
    var paddedStreams: Bool
    /// The speculative decoding workload of `--workload`.
    var workload: SpeculationWorkload?
    /// The shared-prefix or prompt-cache workload of `--workload`.
    var cacheWorkload: CacheWorkload?
    /// How the references run: the pinned binaries.
    var referenceRunner = BenchReferenceRunner.pinned

    init(arguments: inout Arguments) throws(UsageError) {
        typealias O = BenchOptions
        backends = try arguments.list(O.backends) ?? ["llama"]
        config = try arguments.value(O.config)
        runs = try arguments.integer(O.runs) ?? 5
        warmup = try arguments.integer(O.warmup) ?? 1
        prompt = try arguments.value(O.prompt)
        let tokens = try arguments.integer(O.promptTokens)
        if prompt != nil, tokens != nil { throw UsageError("Give --prompt or --prompt-tokens, not both.") }
        if prompt?.isEmpty == true { throw UsageError("--prompt needs some text.") }
        promptTokens = tokens ?? 512
        paddedStreams = tokens != nil
        maxTokens = try arguments.integer(O.maxTokens) ?? 128
        concurrency = try Self.counts(arguments.value(O.concurrency))
        threads = try arguments.integer(O.threads) ?? 2
        model = try arguments.value(O.model) ?? LooplHome.defaultModel
        agent = arguments.flag(O.agent)
        thinkTemplate = try arguments.value(O.thinkTemplate)
        if thinkTemplate != nil, !agent { throw UsageError("--think-template goes with --agent.") }
        if thinkTemplate != nil, concurrency.isEmpty == false { throw UsageError("--think-template replays one conversation: leave out --concurrency.") }
        jsonPath = try arguments.value(O.json)
        svgPath = try arguments.value(O.svg)
        reference = !arguments.flag(O.noReference) && !agent
        let workloadName = try arguments.value(O.workload)
        workload = workloadName.flatMap(SpeculationWorkload.init(rawValue:))
        cacheWorkload = workloadName.flatMap(CacheWorkload.init(rawValue:))
        if backends.isEmpty { throw UsageError("--backends needs at least one name.") }
        if !concurrency.isEmpty, !agent {
            if maxTokens < 2 { throw UsageError("--concurrency needs --max-tokens 2 or more: the decode phase starts after the first token.") }
            if prompt != nil { throw UsageError("--concurrency gives each stream a prompt of its own: use --prompt-tokens to lengthen them.") }
        }
    }

    /// The counts of `--concurrency`: whole numbers from 1 to 64, ascending, each once.
    static func counts(_ list: String?) throws(UsageError) -> [Int] {
        guard let list else { return [] }
        var counts: [Int] = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let count = Int(word.trimmingCharacters(in: .whitespaces)), (1...64).contains(count) else {
                throw UsageError("--concurrency takes comma-separated whole numbers from 1 to 64, such as 1,4, not '\(list)'.")
            }
            if !counts.contains(count) { counts.append(count) }
        }
        return counts.sorted()
    }

    func run(_ console: Console) async throws -> ExitCode {
        if let workload {
            let bench = SpeculationBench(workload: workload, model: model, threads: threads, maxTokens: maxTokens, runs: runs,
                                         warmup: warmup, conversations: concurrency.last ?? 1)
            console.out(try await bench.run(console))
            return .success
        }
        if let cacheWorkload {
            console.out(try await runCache(cacheWorkload, console))
            return .success
        }
        // Each round evaluates its prompt: no backend, nor the workers it starts, loads it from disk.
        setenv("LOOPL_PROMPT_CACHE", "0", 1)
        var config = try BackendFactory.config(path: config, console: console)
        try config.apply(BackendOverrides(model: model, threads: threads))
        if let most = concurrency.max(), most > Self.defaultParallel {
            config = Self.raisingParallel(config, to: most, for: backends) { console.err($0) }
        }
        let router = Router(config: config)
        for name in backends { _ = try config.backend(name) }
        var report = BenchReport(model: (model as NSString).lastPathComponent,
                                 cores: ProcessInfo.processInfo.activeProcessorCount, llamaCppVersion: LlamaCppInstall.version,
                                 threads: threads, promptTokens: promptTokens, maxTokens: maxTokens, runs: runs, warmup: warmup)
        report.concurrency = concurrency
        if let thinkTemplate {
            let steps = try await ReasoningReplay.run(template: try readText(thinkTemplate, what: "template"), model: model, reasoning: .auto)
            console.out(ReasoningReplay.table(steps, name: (thinkTemplate as NSString).lastPathComponent) + "\n")
            report.agent = steps.enumerated().map { index, step in
                BenchReport.AgentStep(backend: ReasoningReplay.rowName, iteration: index + 1, promptTokens: step.promptTokens,
                                      cachedPromptTokens: step.cachedPromptTokens,
                                      newTokens: step.promptTokens - (index == 0 ? 0 : steps[index - 1].promptTokens), ttftMs: 0)
            }
        } else if agent {
            try await runAgent(router: router, report: &report, console: console)
        } else if !concurrency.isEmpty {
            try await runThroughput(router: router, report: &report, console: console)
        } else {
            try await runSpeed(router: router, report: &report, console: console)
        }
        console.out(report.table)
        let goals = BenchGoal.table(BenchGoal.goals(for: report))
        if !goals.isEmpty { console.out("\n" + goals) }
        if let jsonPath { try write(report.json.jsonText(style: .python) + "\n", to: jsonPath) }
        if let svgPath { try write(BenchChart.svg(report), to: svgPath) }
        return .success
    }

    func runSpeed(router: Router, report: inout BenchReport, console: Console) async throws {
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
                console.err("\(label) \(name): TTFT \(Int(sample.ttftMs)) ms (\(evaluated) tokens, \(Int(sample.prefillTokensPerSecond)) tok/s), decode \(String(format: "%.1f", sample.decodeTokensPerSecond)) tok/s"
                            + " (engine's own \(sample.engineDecodeTokensPerSecond.map { String(format: "%.1f", $0) } ?? "-"))")
            case .reference:
                let speeds = try await LlamaBenchReference.measure(model: model, threads: threads, prompt: measuredPromptTokens,
                                                                   generate: maxTokens, depth: decodeDepth, settings: referenceSettings,
                                                                   runner: referenceRunner)
                if step.measured { referenceSamples.append(speeds) }
                console.err("\(label) llama-bench: prefill \(Int(speeds.prefill)) tok/s, decode \(String(format: "%.1f", speeds.decode)) tok/s")
            }
        }
        report.promptTokens = measuredPromptTokens
        addSpeedRows(samples, reference: referenceSamples, to: &report)
    }

    /// The speed report's rows: llama-bench's and each backend's, from their measured rounds.
    private func addSpeedRows(_ samples: [String: [BenchSample]], reference referenceSamples: [(prefill: Double, decode: Double)],
                              to report: inout BenchReport) {
        if let prefill = Spread(referenceSamples.map(\.prefill)), let decode = Spread(referenceSamples.map(\.decode)) {
            report.reference = BenchReport.Reference(prefillTokensPerSecond: prefill, decodeTokensPerSecond: decode,
                                                     prefillByRound: referenceSamples.map(\.prefill), decodeByRound: referenceSamples.map(\.decode))
        }
        for name in backends {
            let list = samples[name] ?? []
            guard let startup = Spread(list.map(\.startupMs)), let ttft = Spread(list.map(\.ttftMs)),
                  let prefill = Spread(list.map(\.prefillTokensPerSecond)), let decode = Spread(list.map(\.decodeTokensPerSecond)) else { continue }
            let reference = report.reference
            report.backends.append(BenchReport.Row(
                backend: name, startupMs: startup, ttftMs: ttft, overheadMs: Spread(list.compactMap(\.overheadMs)),
                prefillTokensPerSecond: prefill, decodeTokensPerSecond: decode,
                prefillByRound: list.map(\.prefillTokensPerSecond), decodeByRound: list.map(\.decodeTokensPerSecond),
                prefillRatio: reference.map { prefill.median / $0.prefillTokensPerSecond.median },
                decodeRatio: reference.map { decode.median / $0.decodeTokensPerSecond.median },
                prefillRatioRounds: reference.flatMap { Quartiles.ofRatios(list.map(\.prefillTokensPerSecond), $0.prefillByRound) },
                decodeRatioRounds: reference.flatMap { Quartiles.ofRatios(list.map(\.decodeTokensPerSecond), $0.decodeByRound) },
                hostRSSMiB: list.map(\.hostRSSMiB).max() ?? 0, childRSSMiB: list.map(\.childRSSMiB).max() ?? 0,
                engineDecodeTokensPerSecond: Spread(list.compactMap(\.engineDecodeTokensPerSecond))))
        }
    }

    /// One agent-mode conversation on one backend: its concurrency and its number (from 1).
    private struct AgentKey: Hashable {
        let backend: String, concurrency: Int, conversation: Int
    }

    /// Replays the agent conversation on each backend; with `--concurrency`, N of them at once
    /// (each its own variant and conversation), for each N.
    private func runAgent(router: Router, report: inout BenchReport, console: Console) async throws {
        var options = GenerationOptions.greedy(maxTokens: min(maxTokens, 16))
        options.backend.ignoreEndOfGeneration = true
        var ttfts: [AgentKey: [[Double]]] = [:]
        var tokens: [AgentKey: [(prompt: Int, cached: Int)]] = [:]
        for step in BenchPlan(backends: backends, warmup: warmup, runs: runs, reference: false).steps {
            guard case .backend(let name) = step.target else { continue }
            let backend = try await router.model(named: name)
            for count in concurrency.isEmpty ? [1] : concurrency {
                let conversations = try await withThrowingTaskGroup(of: (Int, [(prompt: Int, cached: Int)], [Double]).self) { group in
                    for variant in 0..<count {
                        var turnOptions = options
                        turnOptions.conversation = "bench-agent-\(step.round)-\(count)-\(variant + 1)"
                        group.addTask { [turnOptions] in
                            var counts: [(prompt: Int, cached: Int)] = []
                            var times: [Double] = []
                            for messages in AgentConversation.iterations(variant: variant) {
                                let turn = try await Self.timed { backend.generate(messages: messages, tools: AgentConversation.tools, options: turnOptions) }
                                counts.append(try Self.agentCounts(turn.metrics, backend: name))
                                times.append(turn.ttftMs)
                            }
                            return (variant + 1, counts, times)
                        }
                    }
                    var all: [(Int, [(prompt: Int, cached: Int)], [Double])] = []
                    for try await conversation in group { all.append(conversation) }
                    return all.sorted { $0.0 < $1.0 }
                }
                let evaluated = conversations.map { $0.1.map { String($0.prompt - $0.cached) }.joined(separator: ", ") }
                console.err("round \(step.round)\(step.measured ? "" : " (warm-up)") \(name)\(count > 1 ? " x\(count)" : ""): evaluated "
                            + evaluated.joined(separator: "; "))
                guard step.measured else { continue }
                for (conversation, counts, times) in conversations {
                    let key = AgentKey(backend: name, concurrency: count, conversation: conversation)
                    ttfts[key, default: []].append(times)
                    tokens[key] = counts
                }
            }
            await backend.close()
        }
        for name in backends {
            for count in concurrency.isEmpty ? [1] : concurrency {
                for conversation in 1...count {
                    let key = AgentKey(backend: name, concurrency: count, conversation: conversation)
                    guard let counts = tokens[key], let runs = ttfts[key] else { continue }
                    for (index, turn) in counts.enumerated() {
                        let previous = index == 0 ? 0 : counts[index - 1].prompt
                        report.agent.append(BenchReport.AgentStep(
                            backend: name, concurrency: count, conversation: conversation, iteration: index + 1,
                            promptTokens: turn.prompt, cachedPromptTokens: turn.cached, newTokens: turn.prompt - previous,
                            ttftMs: Spread(runs.map { $0[index] })?.median ?? 0))
                    }
                }
            }
        }
    }

    /// An agent turn's prompt and cached token counts; a turn that evaluated no token (all of its
    /// prompt reported as cached) is a reporting error, not a perfect reuse.
    static func agentCounts(_ metrics: Metrics, backend: String) throws -> (prompt: Int, cached: Int) {
        guard metrics.promptTokens - metrics.cachedPromptTokens >= 1 else {
            throw LooplError(.protocolViolation, "\(backend) reported \(metrics.cachedPromptTokens) of its \(metrics.promptTokens) prompt tokens "
                             + "as cached: every turn evaluates at least one token, so the backend's cache count is wrong.")
        }
        return (metrics.promptTokens, metrics.cachedPromptTokens)
    }

    /// Runs a generation to its end: its final metrics, and when each content event reached the host.
    static func streamed(_ generate: () -> AsyncThrowingStream<ModelEvent, any Error>) async throws -> (metrics: Metrics, timing: StreamTiming) {
        let start = ContinuousClock.now
        func since(_ instant: ContinuousClock.Instant) -> Double { (instant - start).milliseconds }
        var events: [Double] = []
        var last: Metrics?
        for try await event in generate() {
            switch event {
            case .text(let text) where text.isEmpty: break
            case .text, .reasoning, .toolCall: events.append(since(.now))
            case .metrics(let metrics): last = metrics
            }
        }
        guard let last, last.finished else { throw LooplError(.protocolViolation, "The backend sent no final metrics.") }
        return (last, StreamTiming(startMs: 0, eventMs: events, endMs: since(.now), generatedTokens: last.generatedTokens,
                                   promptTokens: last.promptTokens, cachedPromptTokens: last.cachedPromptTokens))
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

    func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw LooplError(.io, "Cannot write \(path): \(error.localizedDescription).", underlying: error)
        }
    }
}
