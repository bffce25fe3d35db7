import LooplBench

/// The options of `loopl bench`, each declared once.
enum BenchOptions {
    static let backends = CLIOption("backends", "LIST", default: "llama", help: "Comma-separated backend names.")
    static let config = SharedOptions.config.described("The configuration file (see loopl run --help).")
    static let runs = CLIOption("runs", "N", .integer(1...100), default: "5", help: "Measured runs per backend, {range}.")
    static let warmup = CLIOption("warmup", "N", .integer(0...10), default: "1", help: "Unmeasured runs first, {range}.")
    static let prompt = CLIOption("prompt", "TEXT", help: "The long prompt for prefill.")
    static let promptTokens = CLIOption("prompt-tokens", "N", .integer(16...8192),
                                        defaultHelp: "512; with --concurrency, each stream's prompt is padded to about N tokens",
                                        help: "Or a filler prompt of about N tokens, {range}.")
    static let maxTokens = CLIOption("max-tokens", "N", .integer(1...4096), defaultHelp: "128; 2 or more with --concurrency",
                                     help: "Tokens to generate for decode, {range}.")
    static let threads = SharedOptions.threads.described("CPU threads for every backend and llama-bench, {range}.", defaultValue: "2")
    static let model = SharedOptions.model.described("The GGUF model for every backend and llama-bench.",
                                                     defaultHelp: "$LOOPL_MODEL, else the default model of scripts/bootstrap")
    static let chatTemplate = SharedOptions.chatTemplate.described("The chat template of every backend: a built-in name or a Jinja file.",
                                                                   defaultHelp: "each backend's")
    static let concurrency = CLIOption("concurrency", "LIST", help: "Comma-separated stream counts, 1 to 64, such as 1,2,4,8: "
                                           + "measure throughput with that many conversations at once (with --workload copy|free, "
                                           + "the largest count).")
    static let agent = CLIOption.flag("agent", help: "Replay the agent conversation instead of timing prefill and decode.")
    static let thinkTemplate = CLIOption("think-template", "F", help: "With --agent: replay a thinking conversation on chat template F "
                                             + "(Hermes or gpt-oss calls) instead of running the backends.")
    static let json = CLIOption("json", "FILE", help: "Also write the results as JSON (schema: docs/bench.md).")
    static let svg = CLIOption("svg", "FILE", help: "Also draw decode speed and TTFT per backend (with --concurrency: aggregate "
                                   + "decode speed against N) as an SVG chart.")
    static let noReference = CLIOption.flag("no-reference", help: "Skip llama-bench and llama-batched-bench.")
    static let workload = CLIOption("workload", "NAME", .choice((SpeculationWorkload.allCases.map(\.rawValue) + CacheWorkload.allCases.map(\.rawValue)
                                                                 + [Bench.longArrival, Bench.forcedCall, Bench.embeddingsWorkload])),
                                    help: "A workload instead: 'copy' (an answer that repeats a passage of the prompt) or 'free' (a story) "
                                        + "decode with n-gram drafts, without, and on llama-server with --spec-type ngram-simple; "
                                        + "'shared-prefix' starts 4 conversations with one long system prompt together, then 4 one "
                                        + "after another, sharing prefixes, not, and on llama-server -np 4 with --cache-ram or -kvu; "
                                        + "'prompt-cache' runs one agent turn on two fresh loads, with the prompt cache, without, and on "
                                        + "llama-server with slot save and restore; 'long-arrival' has N streams (--concurrency, default 3) "
                                        + "decode while a prompt of --arrival-tokens arrives, on Loopl and on llama-server -np N+1; "
                                        + "'forced-call' decodes a forced tool call and free text of its length on the same prompt; "
                                        + "'embeddings' embeds 32 texts a round one per call and all in one, on Loopl and on llama-server --embeddings.")
    static let arrivalTokens = CLIOption("arrival-tokens", "T", .integer(64...16384), defaultHelp: "3000",
                                         help: "With --workload long-arrival: the arriving prompt's length in tokens, about, {range}.")

    static let bfcl = CLIOption("bfcl", "DIR", help: "Score the function-calling sample in DIR (bench/bfcl/data) on the server at --url "
                                    + "instead: every question greedy, the calling categories with --tool-choice, 'irrelevance' with "
                                    + "auto; a score per category, the replies with call markup in their text, and with --json each reply.")
    static let url = CLIOption("url", "URL", help: "With --bfcl: the OpenAI-compatible server, such as http://127.0.0.1:8080.")
    static let toolChoice = CLIOption("tool-choice", "MODE", .choice(["required", "auto"]), defaultHelp: "required",
                                      help: "With --bfcl: tool_choice for the calling categories: {range}.")

    static let all = [backends, config, runs, warmup, prompt, promptTokens, maxTokens, threads, model, chatTemplate, concurrency, agent,
                      thinkTemplate, json, svg, noReference, workload, arrivalTokens, bfcl, url, toolChoice]
}
