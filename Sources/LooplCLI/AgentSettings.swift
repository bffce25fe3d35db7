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
    var schemaPath: String?

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
        session = try arguments.option("session")
        json = arguments.flag("json")
        verbose = arguments.flag("verbose")
        schemaPath = try arguments.option("json-schema")
    }

    /// The enabled built-in tools.
    func makeTools() throws -> [any Tool] {
        var made: [any Tool] = []
        for tool in tools {
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
        let builtIn = try makeTools()
        let tools = builtIn + (try await MCPSetup.tools(mcp, configPath: config, builtIn: builtIn, warn: warn))
        if case .tool(let name) = toolChoice, !tools.contains(where: { $0.name == name }) {
            let offered = tools.isEmpty ? "no tool is enabled" : "offered: " + tools.map(\.name).joined(separator: ", ")
            throw UsageError("--tool-choice names '\(name)', which is not an enabled tool (\(offered)).")
        }
        let model = try await BackendFactory.router(configPath: config).model(named: backend) { warning in
            if !json { console.err("warning: \(warning)") }
        }
        if let warning = MCPSetup.sizeWarning(tools, contextSize: (try? await model.contextSize) ?? 0) { warn(warning) }
        let messages = try session.map(SessionFile.load) ?? []
        var generation = self.generation
        if let schemaPath {
            generation.responseFormat = .jsonSchema(try JSONValue(parsing: try readText(schemaPath, what: "schema")))
        }
        return Agent(model: model, tools: tools,
                     options: AgentOptions(maxIterations: maxIterations, toolTimeout: MCPSetup.toolTimeout(tools),
                                           firstToolChoice: toolChoice, generation: generation),
                     messages: messages)
    }
}
