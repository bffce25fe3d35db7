import Foundation
import Loopl

/// The options that `run` and `chat` share: backend, tools, sampling and session.
struct AgentSettings: Sendable {
    var backend: String?
    var config: String?
    var tools: [String]
    /// The MCP servers to enable (`--mcp`), or ["all"].
    var mcp: [String]
    var root: String
    var toolChoice: ToolChoice
    var maxIterations: Int
    var generation: GenerationOptions
    var session: String?
    var json: Bool
    var verbose: Bool
    /// `--show-thinking`: the thinking streams in full rather than as one line.
    var showThinking: Bool
    var schemaPath: String?
    var overrides: BackendOverrides
    var system: String?

    /// The help lines of these options, as `run` and `chat` show them.
    static let optionsHelp = """
          --backend NAME         The backend to use (default: $LOOPL_BACKEND, else the config's default).
          --config FILE          The configuration file (default: $LOOPL_CONFIG, ./loopl.json
                                 once trusted with 'loopl trust', ~/.config/loopl/config.json,
                                 else built-in defaults).
          -m, --model FILE       The GGUF model to run on the backend (default: the backend's, else
                                 $LOOPL_MODEL, else the default model of scripts/bootstrap).
          -c, --ctx-size N       Context length in tokens, 16 to 1048576 (default: the backend's, 4096).
          -t, --threads N        CPU threads, 1 to 256 (default: the backend's, all cores).
          -ngl, --gpu-layers N   Layers to offload to a GPU, 0 to 1000 (default: the backend's, 0).
          --system TEXT          The system prompt (default: none, or the session's).
          --system-file FILE     The system prompt, read from FILE.
          --tools LIST           Tools to enable, comma-separated: calc, time, files (default: none).
          --mcp LIST             MCP servers of the config's mcpServers to enable, comma-separated, or
                                 all (default: none); their tools are named SERVER_TOOL (loopl tools).
          --root DIR             The folder the files tools may read (default: the current folder).
          --tool-choice CHOICE   auto, required, none, or an enabled tool's name (an MCP one too), for
                                 the first iteration (default: auto).
          --max-iterations N     The most model turns, 1 to 100 (default: 8).
          --max-tokens N         The most tokens per turn, 1 to 1000000 (default: 512).
          --temperature T        Sampling temperature, 0 for greedy (default: 0.8).
          --seed S               The sampler's seed, 0 to 4294967294 (default: random).
          --top-k N              Sample from the N likeliest tokens, 0 for all (default: 40).
          --top-p P              Sample from the likeliest tokens up to mass P, 0 to 1 (default: 0.95).
          --min-p P              Drop tokens below P times the likeliest one's, 0 to 1 (default: 0.05).
          --repeat-penalty X     Penalty on repeated tokens, 1 for none (default: 1).
          --think MODE           Thinking: auto (the template's default, on where it can be switched),
                                 on, off, or an effort: low, medium, high (default: auto).
          --think-budget N       The most thinking tokens per turn, 0 to 1000000; then the thinking is
                                 closed and the model answers; 0 is --think off (default: no limit).
          --show-thinking        Stream the thinking in full, dimmed, instead of one line with its length.
          --session FILE         Load the conversation from FILE; save it back after every complete
                                 message (an assistant turn, a tool result).
          --json-schema FILE     The answer must be JSON that this JSON Schema accepts.
          --verbose              Show each tool call's arguments and result under its line.
        """

    init(arguments: inout Arguments) throws(UsageError) {
        backend = try arguments.option("backend") ?? ProcessInfo.processInfo.environment["LOOPL_BACKEND"]
        config = try arguments.option("config")
        tools = (try arguments.option("tools") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for tool in tools where !["calc", "time", "files"].contains(tool) {
            throw UsageError("Unknown tool '\(tool)': use calc, time or files.")
        }
        mcp = (try arguments.option("mcp") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        root = try arguments.option("root") ?? FileManager.default.currentDirectoryPath
        toolChoice = ToolChoice(name: try arguments.option("tool-choice") ?? "auto")
        maxIterations = try arguments.integer("max-iterations", in: 1...100) ?? 8
        generation = GenerationOptions(maxTokens: try arguments.integer("max-tokens", in: 1...1_000_000) ?? 512)
        if let text = try arguments.option("temperature") {
            guard let value = Double(text), value >= 0, value <= 10 else {
                throw UsageError("--temperature takes a number from 0 to 10, not '\(text)'.")
            }
            generation.temperature = value
        }
        if let seed = try arguments.integer("seed", in: 0...4_294_967_294) { generation.seed = UInt32(seed) }
        if let topK = try arguments.integer("top-k", in: 0...1_000_000) { generation.topK = topK }
        if let topP = try arguments.number("top-p", in: 0...1) { generation.topP = topP }
        if let minP = try arguments.number("min-p", in: 0...1) { generation.minP = minP }
        if let penalty = try arguments.number("repeat-penalty", in: 0...10) { generation.repeatPenalty = penalty }
        if let word = try arguments.option("think") {
            guard let setting = ReasoningSetting(name: word) else {
                throw UsageError("--think takes auto, on, off, low, medium or high, not '\(word)'.")
            }
            generation.reasoning = setting
        }
        generation.reasoningBudget = try arguments.integer("think-budget", in: 0...1_000_000)
        showThinking = arguments.flag("show-thinking")
        overrides = try arguments.backendOverrides()
        system = try arguments.option("system")
        if let file = try arguments.option("system-file") {
            guard system == nil else { throw UsageError("Give --system or --system-file, not both.") }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw UsageError("Cannot read the system prompt file \(file).")
            }
            system = text
        }
        session = try arguments.option("session")
        json = arguments.flag("json")
        verbose = arguments.flag("verbose")
        schemaPath = try arguments.option("json-schema")
    }

    /// The enabled built-in tools.
    func makeTools() throws -> [any Tool] {
        try Self.builtInTools(tools, root: root)
    }

    /// The built-in tools named `names` (calc, time, files), the files tools reading under `root`.
    static func builtInTools(_ names: [String], root: String) throws -> [any Tool] {
        var made: [any Tool] = []
        for tool in names {
            switch tool {
            case "calc": made.append(CalculatorTool())
            case "time": made.append(DateTimeTool())
            default:
                let fileRoot = try FileRoot(root)
                made += [ListFilesTool(root: fileRoot), ReadFileTool(root: fileRoot)]
            }
        }
        return made
    }

    func makeAgent(console: Console) async throws -> Agent {
        let json = self.json
        let warn: (String) -> Void = { text in
            if json {
                console.out(((try? JSONValue(encoding: AgentEvent.warning(text)).jsonText()) ?? "") + "\n")
            } else {
                console.err("warning: \(text)")
            }
        }
        var config = try BackendFactory.config(path: self.config, console: console)
        let builtIn = try makeTools()
        let remote = try await MCPSetup.tools(mcp, servers: config.mcpServers, builtIn: builtIn, warn: warn)
        let tools = builtIn + remote.tools
        if case .tool(let name) = toolChoice, !tools.contains(where: { $0.name == name }) {
            let offered = tools.isEmpty ? "no tool is enabled" : "offered: " + tools.map(\.name).joined(separator: ", ")
            throw UsageError("--tool-choice names '\(name)', which is not an enabled tool (\(offered)).")
        }
        try config.apply(overrides)
        let model = try await Router(config: config).model(named: backend) { warning in
            if !json { console.err("warning: \(warning)") }
        }
        if let warning = MCPSetup.sizeWarning(tools, contextSize: (try? await model.contextSize) ?? 0) { warn(warning) }
        var messages = try session.map(SessionFile.load) ?? []
        if let system {
            if messages.first?.role == "system" { messages[0] = .system(system) } else { messages.insert(.system(system), at: 0) }
        }
        var generation = self.generation
        if let schemaPath {
            generation.responseFormat = .jsonSchema(try JSONValue(parsing: try readText(schemaPath, what: "schema")))
        }
        return Agent(model: model, tools: builtIn, toolSources: remote.source.map { [$0] } ?? [],
                     options: AgentOptions(maxIterations: maxIterations, toolTimeout: MCPSetup.toolTimeout(tools),
                                           firstToolChoice: toolChoice, generation: generation),
                     messages: messages)
    }

    /// Saves the agent's conversation to `path` (atomically) when `event` reports a complete
    /// message: the user's (at the first iteration), an assistant turn or a tool result. A host
    /// killed later leaves every such message.
    static func save(after event: AgentEvent, of agent: Agent, to path: String?) async throws {
        guard let path else { return }
        switch event {
        case .iterationStarted(1), .assistantMessage, .toolFinished: try SessionFile.save(await agent.messages, to: path)
        default: break
        }
    }
}
