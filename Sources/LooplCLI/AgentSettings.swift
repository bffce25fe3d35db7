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
    var showReasoning: Bool
    var schemaPath: String?
    var overrides: BackendOverrides
    var system: String?
    /// `--approve`: whether calls of tools that the config does not set wait for approval.
    var approve: ToolApproval?

    init(arguments: inout Arguments) throws(UsageError) {
        typealias O = SharedOptions
        backend = try arguments.value(O.backend)
        config = try arguments.value(O.config)
        tools = try arguments.list(O.tools) ?? []
        for tool in tools where !BuiltInTools.names.contains(tool) {
            throw UsageError(BuiltInTools.unknown(tool))
        }
        mcp = try arguments.list(O.mcp) ?? []
        root = try arguments.value(O.root) ?? FileManager.default.currentDirectoryPath
        approve = try arguments.value(O.approve).flatMap(ToolApproval.init(rawValue:))
        toolChoice = ToolChoice(name: try arguments.value(O.toolChoice) ?? "auto")
        maxIterations = try arguments.integer(O.maxIterations) ?? 8
        generation = try Self.generation(&arguments)
        showReasoning = arguments.flag(O.showReasoning)
        overrides = try arguments.backendOverrides()
        system = try arguments.value(O.system)
        if let file = try arguments.value(O.systemFile) {
            guard system == nil else { throw UsageError("Give --system or --system-file, not both.") }
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw UsageError("Cannot read the system prompt file \(file).")
            }
            system = text
        }
        session = try arguments.value(O.session)
        json = arguments.flag(O.json)
        verbose = arguments.flag(O.verbose)
        schemaPath = try arguments.value(O.jsonSchema)
    }

    /// The ``GenerationOptions`` that `options` set: each option that has a destination, given or at its default.
    static func generation(_ arguments: inout Arguments, from options: [CLIOption] = SharedOptions.generation) throws(UsageError) -> GenerationOptions {
        var generation = GenerationOptions()
        for option in options {
            if let sets = option.sets, let value = try arguments.value(option) { sets(&generation, value) }
        }
        return generation
    }

    /// The agent of these settings; `approver` decides on calls that need approval.
    func makeAgent(console: Console, approver: ToolApprover?) async throws -> Agent {
        let json = self.json
        let warn: (String) -> Void = { text in
            if json {
                console.out(((try? JSONValue(encoding: AgentEvent.warning(text)).jsonText()) ?? "") + "\n")
            } else {
                console.err("warning: \(text)")
            }
        }
        var config = try BackendFactory.config(path: self.config, console: console)
        let builtIn = try BuiltInTools.make(tools, root: root, approvals: try BuiltInTools.approvals(config.tools))
        let remote = try await MCPSetup.tools(mcp, config: config, builtIn: builtIn, warn: warn)
        let tools = builtIn + remote.tools
        if case .tool(let name) = toolChoice, !tools.contains(where: { $0.name == name }) {
            let offered = tools.isEmpty ? "no tool is enabled" : "offered: " + tools.map(\.name).joined(separator: ", ")
            throw UsageError("--tool-choice names '\(name)', which is not an enabled tool (\(offered)).")
        }
        try config.apply(overrides)
        let model = try await Router(config: config).model(named: backend) { warning in
            if !json { console.err("warning: \(warning)") }
        }
        if let warning = MCPSetup.sizeWarning(tools, contextSize: (try? await model.contextSize) ?? 0, toolChoice: toolChoice) { warn(warning) }
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
                                           firstToolChoice: toolChoice, generation: generation, approval: approve ?? .allow),
                     messages: messages, approver: approver)
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
