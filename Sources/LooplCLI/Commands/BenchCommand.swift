import Foundation
import Loopl
import LooplBench

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
                           [--workload copy|free|shared-prefix|prompt-cache|forced-call|long-arrival [--arrival-tokens T]|embeddings]
               loopl bench --bfcl DIR --url URL [--tool-choice required|auto] [--max-tokens N]
                           [--json FILE]

        OPTIONS:
        \(CLIOption.help(options))

        """

    static let options = BenchOptions.all + [CLIOption.showHelp]

    /// The configuration file of `--config`.
    var config: String?
    /// The chat template file of `--think-template`.
    var thinkTemplate: String?
    /// What the run measures, from the other options.
    var bench = Bench()
    /// The sample's data folder and how to ask the server, with `--bfcl`.
    var bfcl: (folder: String, run: BFCLRun)?

    init(arguments: inout Arguments) throws(UsageError) {
        typealias O = BenchOptions
        bench.backends = try arguments.list(O.backends) ?? ["llama"]
        config = try arguments.value(O.config)
        bench.runs = try arguments.integer(O.runs) ?? 5
        bench.warmup = try arguments.integer(O.warmup) ?? 1
        bench.prompt = try arguments.value(O.prompt)
        let tokens = try arguments.integer(O.promptTokens)
        if bench.prompt != nil, tokens != nil { throw UsageError("Give --prompt or --prompt-tokens, not both.") }
        if bench.prompt?.isEmpty == true { throw UsageError("--prompt needs some text.") }
        bench.promptTokens = tokens ?? 512
        bench.paddedStreams = tokens != nil
        let maxTokens = try arguments.integer(O.maxTokens)
        bench.maxTokens = maxTokens ?? 128
        bench.concurrency = try Self.counts(arguments.value(O.concurrency))
        bench.threads = try arguments.integer(O.threads) ?? 2
        bench.model = try arguments.value(O.model) ?? LooplHome.defaultModel
        bench.chatTemplate = try arguments.value(O.chatTemplate)
        bench.agent = arguments.flag(O.agent)
        thinkTemplate = try arguments.value(O.thinkTemplate)
        if thinkTemplate != nil, !bench.agent { throw UsageError("--think-template goes with --agent.") }
        if thinkTemplate != nil, !bench.concurrency.isEmpty { throw UsageError("--think-template replays one conversation: leave out --concurrency.") }
        bench.jsonPath = try arguments.value(O.json)
        bench.svgPath = try arguments.value(O.svg)
        bench.reference = !arguments.flag(O.noReference) && !bench.agent
        let workloadName = try arguments.value(O.workload)
        bench.workload = workloadName.flatMap(SpeculationWorkload.init(rawValue:))
        bench.cacheWorkload = workloadName.flatMap(CacheWorkload.init(rawValue:))
        let arrivalTokens = try arguments.integer(O.arrivalTokens)
        if arrivalTokens != nil, workloadName != Bench.longArrival { throw UsageError("--arrival-tokens goes with --workload long-arrival.") }
        if workloadName == Bench.longArrival { bench.arrivalTokens = arrivalTokens ?? 3000 }
        bench.forcedCall = workloadName == Bench.forcedCall
        bench.embeddings = workloadName == Bench.embeddingsWorkload
        bfcl = try Self.bfcl(&arguments, maxTokens: maxTokens ?? 256)
        if bench.backends.isEmpty { throw UsageError("--backends needs at least one name.") }
        if !bench.concurrency.isEmpty, !bench.agent {
            if bench.maxTokens < 2 { throw UsageError("--concurrency needs --max-tokens 2 or more: the decode phase starts after the first token.") }
            if bench.prompt != nil { throw UsageError("--concurrency gives each stream a prompt of its own: use --prompt-tokens to lengthen them.") }
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

    /// The sample run of `--bfcl DIR --url URL`, when asked.
    static func bfcl(_ arguments: inout Arguments, maxTokens: Int) throws(UsageError) -> (folder: String, run: BFCLRun)? {
        typealias O = BenchOptions
        let url = try arguments.value(O.url)
        let choice = try arguments.value(O.toolChoice)
        guard let folder = try arguments.value(O.bfcl) else {
            if url != nil || choice != nil { throw UsageError("--url and --tool-choice go with --bfcl.") }
            return nil
        }
        guard let url else { throw UsageError("--bfcl needs --url: the server to ask, such as http://127.0.0.1:8080.") }
        var run = BFCLRun(url: url)
        run.toolChoice = choice ?? "required"
        run.maxTokens = maxTokens
        run.apiKey = ProcessInfo.processInfo.environment["LOOPL_API_KEY"]
        return (folder, run)
    }

    func run(_ console: Console) async throws -> ExitCode {
        if let bfcl {
            let report = BFCLReport(replies: try await bfcl.run.run(try BFCLCase.load(from: bfcl.folder), log: { console.err($0) }))
            if let path = bench.jsonPath { try bench.write(report.json.jsonText(style: .python) + "\n", to: path) }
            console.out(report.table + "\n")
            return .success
        }
        var bench = bench
        if let thinkTemplate {
            bench.thinkTemplate = ((thinkTemplate as NSString).lastPathComponent, try readText(thinkTemplate, what: "template"))
        }
        let output = try await bench.run(log: { console.err($0) }) {
            (try BackendFactory.config(path: config, console: console), try BackendFactory.kinds)
        }
        console.out(output)
        return .success
    }
}
