import Loopl

/// The options that several commands take, each declared once, and their groups.
enum SharedOptions {
    private static let defaults = GenerationOptions()

    // Backend selection.
    static let backend = CLIOption("backend", "NAME", defaultHelp: "the config's default", environment: "LOOPL_BACKEND",
                                   help: "The backend to use.")
    static let config = CLIOption("config", "FILE", defaultHelp: "$LOOPL_CONFIG, ./loopl.json once trusted with 'loopl trust', "
                                      + "~/.config/loopl/config.json, else built-in defaults", help: "The configuration file.")
    static let model = CLIOption("model", short: "m", "FILE", defaultHelp: "the backend's, else $LOOPL_MODEL, else the default model of scripts/bootstrap",
                                 help: "The GGUF model to run on the backend.")
    static let contextSize = CLIOption("ctx-size", short: "c", "N", .integer(16...1_048_576), defaultHelp: "the backend's, 4096",
                                       help: "Context length in tokens, {range}.")
    static let threads = CLIOption("threads", short: "t", "N", .integer(1...256), defaultHelp: "the backend's, all cores",
                                   help: "CPU threads, {range}.")
    static let gpuLayers = CLIOption("gpu-layers", short: "ngl", "N", .integer(0...1000), defaultHelp: "the backend's, 0",
                                     help: "Layers to offload to a GPU, {range}.")
    static let chatTemplate = CLIOption("chat-template", "NAME", defaultHelp: "the backend's, else the model's, else chatml",
                                        help: "The chat template: a built-in name (loopl template list) or a Jinja file (NAME has a / or .jinja).")

    // The prompt and the tools.
    static let system = CLIOption("system", "TEXT", defaultHelp: "none, or the session's", help: "The system prompt.")
    static let systemFile = CLIOption("system-file", "FILE", help: "The system prompt, read from FILE.")
    static let tools = CLIOption("tools", "LIST", defaultHelp: "none", help: "Tools to enable, comma-separated: \(BuiltInToolSet.listed()).")
    static let mcp = CLIOption("mcp", "LIST", defaultHelp: "none", help: "MCP servers of the config's mcpServers to enable, "
                                   + "comma-separated, or all {default}; their tools are named SERVER_TOOL (loopl tools).")
    static let root = CLIOption("root", "DIR", defaultHelp: "the current folder", help: "The folder the files tools may read.")
    static let approve = CLIOption("approve", "MODE", .choice(ToolApproval.allCases.map(\.rawValue)), defaultHelp: "allow",
                                   help: "ask: ask before each call of a tool whose config sets no \"approval\"; allow: run such calls at once.")
    static let toolChoice = CLIOption("tool-choice", "CHOICE", default: "auto",
                                      help: "auto, required, none, or an enabled tool's name (an MCP one too), for the first iteration.")
    static let maxIterations = CLIOption("max-iterations", "N", .integer(1...100), default: "8", help: "The most model turns, {range}.")

    // Generation.
    static let maxTokens = CLIOption("max-tokens", "N", .integer(1...1_000_000), default: "512", help: "The most tokens per turn, {range}.") {
        $0.maxTokens = Int($1)
    }
    static let temperature = CLIOption("temperature", "T", .number(0...10), default: CalculatorTool.format(defaults.temperature),
                                       help: "Sampling temperature, 0 for greedy.") {
        $0.temperature = Double($1) ?? $0.temperature
    }
    static let seed = CLIOption("seed", "S", .integer(0...4_294_967_294), defaultHelp: "random", help: "The sampler's seed, {range}.") {
        $0.seed = UInt32($1)
    }
    static let topK = CLIOption("top-k", "N", .integer(0...1_000_000), default: String(defaults.topK),
                                help: "Sample from the N likeliest tokens, 0 for all.") {
        $0.topK = Int($1) ?? $0.topK
    }
    static let topP = CLIOption("top-p", "P", .number(0...1), default: CalculatorTool.format(defaults.topP),
                                help: "Sample from the likeliest tokens up to mass P, {range}.") {
        $0.topP = Double($1) ?? $0.topP
    }
    static let minP = CLIOption("min-p", "P", .number(0...1), default: CalculatorTool.format(defaults.minP),
                                help: "Drop tokens below P times the likeliest one's, {range}.") {
        $0.minP = Double($1) ?? $0.minP
    }
    static let repeatPenalty = CLIOption("repeat-penalty", "X", .number(0...10), default: CalculatorTool.format(defaults.repeatPenalty),
                                         help: "Penalty on repeated tokens, 1 for none.") {
        $0.repeatPenalty = Double($1) ?? $0.repeatPenalty
    }
    static let think = CLIOption("think", "MODE", .choice(["auto", "on", "off", "low", "medium", "high"]), default: "auto",
                                 help: "Thinking: auto (the template's default, on where it can be switched), on, off, or an effort: low, medium, high.") {
        $0.reasoning = ReasoningSetting(name: $1) ?? $0.reasoning
    }
    static let thinkBudget = CLIOption("think-budget", "N", .integer(0...1_000_000), defaultHelp: "no limit",
                                       help: "The most thinking tokens per turn, {range}; then the thinking is closed and the model answers; 0 is --think off.") {
        $0.reasoningBudget = Int($1)
    }
    static let showReasoning = CLIOption.flag("show-thinking", help: "Stream the thinking in full, dimmed, instead of one line with its length.")

    // The session and the output.
    static let session = CLIOption("session", "FILE", help: "Load the conversation from FILE; save it back after every complete message "
                                       + "(an assistant turn, a tool result).")
    static let jsonSchema = CLIOption("json-schema", "FILE", help: "The answer must be JSON that this JSON Schema accepts.")
    static let verbose = CLIOption.flag("verbose", help: "Show each tool call's arguments and result under its line.")
    static let json = CLIOption.flag("json", help: "Print every event as one JSON object per line, and nothing else.")

    /// The backend and what it runs: `--backend`, `--config` and the ``BackendOverrides``.
    static let backendSelection = [backend, config] + overrides
    /// The ``BackendOverrides``' options.
    static let overrides = [model, contextSize, threads, gpuLayers, chatTemplate]
    /// The overrides as `serve` describes them: for every backend.
    static let overridesForEvery = overridesFor("The GGUF model for every backend.", defaultHelp: "each backend's")

    /// The overrides of a command that serves configured backends, whose default is each backend's own.
    static func overridesFor(_ modelHelp: String, defaultHelp: String = "the backend's") -> [CLIOption] {
        [model.described(modelHelp, defaultHelp: defaultHelp)] + [contextSize, threads, gpuLayers, chatTemplate].map {
            $0.described($0.help, defaultHelp: "the backend's")
        }
    }

    static let prompt = [system, systemFile]
    static let tooling = [tools, mcp, root, approve, toolChoice, maxIterations]
    static let generation = [maxTokens, temperature, seed, topK, topP, minP, repeatPenalty, think, thinkBudget, showReasoning]
    static let output = [session, jsonSchema, verbose]
    /// Every option of ``AgentSettings``, as `run` and `chat` list them.
    static let agent = backendSelection + prompt + tooling + generation + output
}
