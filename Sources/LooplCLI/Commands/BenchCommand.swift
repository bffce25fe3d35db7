import Foundation
import Loopl

/// `loopl bench`: the backends side by side against llama-bench, interleaved run by run.
struct BenchCommand: Command {
    static let name = "bench"
    static let abstract = "Compare the backends' speed on one model, against llama-bench."
    static let help = """
        Measure each backend on the same model with greedy sampling, interleaving the backends run
        by run so that drift on a shared machine hits all alike, next to the pinned llama-bench.
        Prefill is measured on a prompt of about --prompt-tokens tokens (one token generated);
        decode on a short prompt with --max-tokens generated through end-of-generation.

        USAGE: loopl bench [--backends LIST] [--config FILE] [--runs N] [--warmup N]
                           [--prompt-tokens N] [--max-tokens N] [--threads N] [--json FILE] [--no-reference]

        OPTIONS:
          --backends LIST      Comma-separated backend names (default: llama).
          --config FILE        The configuration file (see loopl run --help).
          --runs N             Measured runs per backend, 1 to 100 (default: 5).
          --warmup N           Unmeasured runs first, 0 to 10 (default: 1).
          --prompt-tokens N    Prompt length for prefill, 16 to 8192 (default: 512).
          --max-tokens N       Tokens to generate for decode, 1 to 4096 (default: 128).
          --threads N          CPU threads for every backend and llama-bench, 1 to 256 (default: 2).
          --json FILE          Also write the results as JSON.
          --no-reference       Skip llama-bench.
          -h, --help           Show this help.

        """

    var backends: [String]
    var config: String?
    var runs: Int
    var warmup: Int
    var promptTokens: Int
    var maxTokens: Int
    var threads: Int
    var jsonPath: String?
    var reference: Bool

    init(arguments: inout Arguments) throws(UsageError) {
        backends = (try arguments.option("backends") ?? "llama").split(separator: ",").map(String.init)
        config = try arguments.option("config")
        runs = try arguments.integer("runs", in: 1...100) ?? 5
        warmup = try arguments.integer("warmup", in: 0...10) ?? 1
        promptTokens = try arguments.integer("prompt-tokens", in: 16...8192) ?? 512
        maxTokens = try arguments.integer("max-tokens", in: 1...4096) ?? 128
        threads = try arguments.integer("threads", in: 1...256) ?? 2
        jsonPath = try arguments.option("json")
        reference = !arguments.flag("no-reference")
    }

    func run(_ console: Console) async throws -> ExitCode {
        let router = try BackendFactory.router(configPath: config)
        var samples: [String: [BenchSample]] = [:]
        var referenceSamples: [(prefill: Double, decode: Double)] = []
        // About ten tokens a sentence, and about forty for the template: just under --prompt-tokens.
        let filler = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: max(1, (promptTokens - 40) / 10))
        let longPrompt: [Message] = [.user(filler + "Summarise.")]
        let shortPrompt: [Message] = [.user("Tell me a long story about a fox.")]
        var decodeOptions = GenerationOptions.greedy(maxTokens: maxTokens)
        decodeOptions.ignoreEndOfGeneration = true
        let model = LooplHome.defaultModel
        for round in 0..<(warmup + runs) {
            let measured = round >= warmup
            for name in backends {
                let clock = ContinuousClock.now
                let backend = try await router.model(named: name)
                _ = try await backend.contextSize  // a backend that starts lazily starts here
                let startup = (ContinuousClock.now - clock).milliseconds
                let prefill = try await final(backend.generate(messages: longPrompt, tools: [], options: .greedy(maxTokens: 1)))
                let decode = try await final(backend.generate(messages: shortPrompt, tools: [], options: decodeOptions))
                await backend.close()
                guard let ttft = prefill.ttftMs, ttft > 0 else { throw LooplError(.generationFailed, "\(name) reported no TTFT.") }
                let sample = BenchSample(startupMs: startup, ttftMs: ttft,
                                         prefillTokensPerSecond: Double(prefill.promptTokens - prefill.cachedPromptTokens) / (ttft / 1000),
                                         decodeTokensPerSecond: decode.tokensPerSecond ?? 0)
                if measured { samples[name, default: []].append(sample) }
                console.err("round \(round + 1)\(measured ? "" : " (warm-up)") \(name): prefill \(Int(sample.prefillTokensPerSecond)) tok/s (\(prefill.promptTokens) tokens), decode \(String(format: "%.1f", sample.decodeTokensPerSecond)) tok/s")
            }
            if reference {
                let speeds = try await LlamaBenchReference.measure(model: model, threads: threads, prompt: promptTokens, generate: maxTokens)
                if measured { referenceSamples.append(speeds) }
                console.err("round \(round + 1)\(measured ? "" : " (warm-up)") llama-bench: prefill \(Int(speeds.prefill)) tok/s, decode \(String(format: "%.1f", speeds.decode)) tok/s")
            }
        }
        report(samples: samples, reference: referenceSamples, console: console)
        return .success
    }

    /// One table row: the name left-aligned, the figures right-aligned.
    private func row(_ cells: [String]) -> String {
        let widths = [12, 11, 10, 12, 8, 11, 8]
        return zip(cells, widths).enumerated().map { index, pair in
            let (cell, width) = pair
            let pad = String(repeating: " ", count: max(0, width - cell.count))
            return index == 0 ? cell + pad : pad + cell
        }.joined(separator: " ")
    }

    private func fixed(_ value: Double) -> String { String(format: "%.1f", value) }

    private func final(_ stream: AsyncThrowingStream<ModelEvent, any Error>) async throws -> Metrics {
        var last: Metrics?
        for try await event in stream { if case .metrics(let m) = event { last = m } }
        guard let last, last.finished else { throw LooplError(.protocolViolation, "The backend sent no final metrics.") }
        return last
    }

    private func report(samples: [String: [BenchSample]], reference: [(prefill: Double, decode: Double)], console: Console) {
        let referencePrefill = Spread(reference.map(\.prefill))
        let referenceDecode = Spread(reference.map(\.decode))
        var lines = [row(["backend", "startup ms", "TTFT ms", "prefill t/s", "vs ref", "decode t/s", "vs ref"])]
        var json: JSONObject = ["threads": .integer(threads), "promptTokens": .integer(promptTokens), "maxTokens": .integer(maxTokens),
                                "runs": .integer(runs), "cores": .integer(ProcessInfo.processInfo.activeProcessorCount),
                                "llamaCppVersion": .string(LooplHome.llamaCppVersion)]
        var rows = JSONObject()
        for name in backends {
            let list = samples[name] ?? []
            guard let prefill = Spread(list.map(\.prefillTokensPerSecond)), let decode = Spread(list.map(\.decodeTokensPerSecond)),
                  let ttft = Spread(list.map(\.ttftMs)), let startup = Spread(list.compactMap(\.startupMs)) else { continue }
            let prefillRatio = referencePrefill.map { prefill.median / $0.median }
            let decodeRatio = referenceDecode.map { decode.median / $0.median }
            lines.append(row([name, fixed(startup.median), fixed(ttft.median), fixed(prefill.median),
                              prefillRatio.map { String(format: "%.3fx", $0) } ?? "-", fixed(decode.median),
                              decodeRatio.map { String(format: "%.3fx", $0) } ?? "-"]))
            rows[name] = ["startupMs": startup.json, "ttftMs": ttft.json, "prefillTokensPerSecond": prefill.json,
                          "decodeTokensPerSecond": decode.json,
                          "prefillRatio": prefillRatio.map(JSONValue.double) ?? .null, "decodeRatio": decodeRatio.map(JSONValue.double) ?? .null]
        }
        if let referencePrefill, let referenceDecode {
            lines.append(row(["llama-bench", "-", "-", fixed(referencePrefill.median), "1.000x", fixed(referenceDecode.median), "1.000x"]))
            json["reference"] = ["prefillTokensPerSecond": referencePrefill.json, "decodeTokensPerSecond": referenceDecode.json]
        }
        json["backends"] = .object(rows)
        console.out(lines.joined(separator: "\n") + "\n")
        if let jsonPath { try? (JSONValue.object(json).jsonText(style: .python) + "\n").write(toFile: jsonPath, atomically: true, encoding: .utf8) }
    }
}
