import Loopl

extension Bench {
    /// `--concurrency`: each round starts every backend once and runs each N on it, N streams
    /// at once, then llama-batched-bench over every N with the same prompt and token counts.
    func runThroughput(router: Router, report: inout BenchReport, log: Bench.Log) async throws {
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.backend.ignoreEndOfGeneration = true
        var warmOptions = options
        warmOptions.maxTokens = 2
        let padding = paddedStreams ? Self.filler(tokens: promptTokens - 12) : ""
        var rounds: [String: [Int: [ConcurrentRound]]] = [:]
        var referenceRounds: [Int: [BatchedBenchReference.Result]] = [:]
        var promptLength = 0
        let flashAttention = LlamaBenchReference.Settings(section: try? router.config.backend(BenchGoal.inProcess).section).flashAttention
        for step in BenchPlan(backends: backends, warmup: warmup, runs: runs, reference: reference).steps {
            let label = "round \(step.round)\(step.measured ? "" : " (warm-up)")"
            switch step.target {
            case .backend(let name):
                let backend = try await router.model(named: name)
                // The first decode after loading allocates what later ones reuse: not measured.
                let warm = ConcurrentRound.prompts(count: 1, offset: 127, padding: padding)[0]
                _ = try await Self.timed { backend.generate(messages: warm, tools: [], options: warmOptions) }
                var offset = 0
                var speeds: [String] = []
                for count in concurrency {
                    let prompts = ConcurrentRound.prompts(count: count, offset: offset, padding: padding)
                    offset += count
                    let round = try await ConcurrentRound(running: prompts, on: backend, options: options,
                                                          conversation: "bench-\(step.round)-\(count)")
                    let lengths = Set(round.streams.map(\.promptTokens))
                    if lengths.count > 1 {
                        log("warning: the \(count) prompts of \(name) have \(lengths.sorted().map(String.init).joined(separator: ", ")) tokens, not one length")
                    }
                    promptLength = max(promptLength, lengths.max() ?? 0)
                    if step.measured { rounds[name, default: [:]][count, default: []].append(round) }
                    speeds.append("\(count): " + (round.aggregateDecode.map { String(format: "%.1f", $0) } ?? "-"))
                }
                await backend.close()
                log("\(label) \(name): aggregate decode tok/s at " + speeds.joined(separator: ", "))
            case .reference:
                let results = try await BatchedBenchReference.measure(model: model, threads: threads, prompt: promptLength,
                                                                      generate: maxTokens, concurrency: concurrency,
                                                                      flashAttention: flashAttention, runner: referenceRunner)
                if step.measured {
                    for result in results { referenceRounds[result.sequences, default: []].append(result) }
                }
                log("\(label) llama-batched-bench: S_TG at "
                            + results.map { "\($0.sequences): " + String(format: "%.1f", $0.decodeTokensPerSecond) }.joined(separator: ", "))
            }
        }
        report.promptTokens = promptLength
        for count in concurrency {
            let engine = referenceRounds[count].flatMap(BenchRow.init(reference:))
            for name in backends {
                guard let row = BenchRow(backend: name, concurrency: count, rounds: rounds[name]?[count] ?? []) else { continue }
                report.rows.append(engine.map(row.compared(with:)) ?? row)
            }
            if let engine { report.rows.append(engine) }
        }
    }

    /// The backends' default number of requests served at once (config key `parallel`).
    static let defaultParallel = 4

    /// `config` with `parallel` raised to `parallel` on each of `names` that serves fewer, so that
    /// N streams started together run together; a kind that takes no `parallel` is left as it is.
    static func raisingParallel(_ config: LooplConfig, to parallel: Int, for names: [String], kinds: [BackendKind],
                               warn: (String) -> Void) -> LooplConfig {
        var config = config
        for name in names {
            guard let backend = config.backends[name], (backend.section["parallel"]?.intValue ?? defaultParallel) < parallel else { continue }
            var section = backend.section
            section["parallel"] = .integer(parallel)
            let text = JSONValue.object(["default": .string(name), "backends": .object([name: .object(section)])]).jsonText()
            if let raised = try? LooplConfig(json: text, kinds: kinds).backends[name] {
                config.backends[name] = raised
            } else {
                warn("warning: backend '\(name)' takes no 'parallel': streams beyond the \(defaultParallel) it serves at once wait in its queue")
            }
        }
        return config
    }

    /// About `tokens` tokens of filler text: ten tokens a sentence.
    static func filler(tokens: Int) -> String {
        String(repeating: "The quick brown fox jumps over the lazy dog. ", count: max(1, tokens / 10))
    }
}
