import Loopl
import LooplMCP
import Synchronization

/// The CLI's MCP servers: started for `--mcp`, their tools added to the run's, and all of them
/// shut down when the command ends (``shutdownAll()``, called by ``CLI``).
enum MCPSetup {
    private static let hubs = Mutex<[MCPHub]>([])

    /// Starts the servers `names` ("all" for every configured one) of a config's `mcpServers`;
    /// their tools come after `builtIn`, whose names they may not take. A server that cannot
    /// start is a warning, and its tools are missing.
    /// The tools as listed at start, and the source that keeps them current during the run.
    static func tools(_ names: [String], config: LooplConfig, builtIn: [any Tool],
                      warn: (String) -> Void) async throws -> (tools: [any Tool], source: (any ToolSource)?) {
        guard !names.isEmpty else { return ([], nil) }
        let hub = try MCPHub(servers: config.mcpServers, folder: config.folder)
        let chosen = try hub.select(names)
        hubs.withLock { $0.append(hub) }
        let started = await hub.start(chosen, taken: Set(builtIn.map(\.name)))
        started.warnings.forEach(warn)
        return (started.tools, started.source)
    }

    /// The warning when the tools' definitions take more than a quarter of the context: it names
    /// each MCP server with its tools' count and share, and, with `--tool-choice NAME` of a server's
    /// tool, the server to narrow with its `tools` list.
    static func sizeWarning(_ tools: [any Tool], contextSize: Int, toolChoice: ToolChoice = .auto) -> String? {
        let sizes = tools.map { ($0, $0.spec.openAIValue.jsonText().utf8.count / 4) }
        let tokens = sizes.reduce(0) { $0 + $1.1 }
        guard contextSize > 0, tokens * 4 > contextSize else { return nil }
        var owners: [(owner: String, count: Int, tokens: Int)] = []
        for (tool, size) in sizes {
            let owner = (tool as? MCPTool).map { "MCP server '\($0.client.config.name)'" } ?? "the built-in tools"
            if let index = owners.firstIndex(where: { $0.owner == owner }) {
                owners[index].count += 1
                owners[index].tokens += size
            } else {
                owners.append((owner, 1, size))
            }
        }
        let shares = owners.sorted { $0.tokens > $1.tokens }.map { "\($0.owner): \($0.count) (about \($0.tokens) tokens)" }
        var advice = "enable fewer with --mcp, --tools or a server's \"tools\" list in mcpServers."
        if case .tool(let name) = toolChoice, let chosen = tools.first(where: { $0.name == name }) as? MCPTool {
            let server = chosen.client.config.name
            advice = "--tool-choice \(name) needs only that tool: narrow MCP server '\(server)' with \"tools\": [\"\(chosen.remoteName)\"] in its mcpServers entry."
        }
        return "The \(tools.count) enabled tools take about \(tokens) tokens (at 4 bytes a token) of the \(contextSize)-token context (\(shares.joined(separator: "; "))); \(advice)"
    }

    /// The agent's time limit per call: 30 seconds, or longer when a server's timeoutSeconds is,
    /// so that the server's own timeout (which cancels the call) comes first.
    static func toolTimeout(_ tools: [any Tool]) -> Duration {
        tools.compactMap { ($0 as? MCPTool)?.client.config.timeout }.reduce(.seconds(30)) { max($0, $1 + .seconds(5)) }
    }

    /// Ends every server the command started.
    static func shutdownAll() async {
        let started = hubs.withLock { hubs in
            defer { hubs = [] }
            return hubs
        }
        for hub in started { await hub.shutdown() }
    }
}
