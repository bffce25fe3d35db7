import Foundation
import Loopl
import LooplAPI
import LooplMCP

/// The tools `loopl serve` offers its agent runs: the built-in ones, the files tools reading under
/// the folder it started in, and the config's MCP servers, started for each run that enables them
/// and stopped when it ends.
enum ServeToolkit {
    static func make(config: LooplConfig, root: String = FileManager.default.currentDirectoryPath) -> AgentToolkit {
        let servers = config.mcpServers
        return AgentToolkit(builtIn: BuiltInTools.names, mcpServers: servers.keys.sorted()) { tools, mcp in
            for tool in tools where !BuiltInTools.names.contains(tool) {
                throw APIError.invalidRequest(BuiltInTools.unknown(tool), param: "tools")
            }
            let builtIn = try BuiltInTools.make(tools, root: root, approvals: BuiltInTools.approvals(config.tools))
            guard !mcp.isEmpty else { return AgentToolkit.Made(tools: builtIn) }
            let hub: MCPHub
            let chosen: [MCPClient]
            do {
                hub = try MCPHub(servers: servers, folder: config.folder)
                chosen = try hub.select(mcp)
            } catch {
                throw APIError.invalidRequest((error as? LooplError)?.message ?? "\(error)", param: "mcp")
            }
            let started = await hub.start(chosen, taken: Set(builtIn.map(\.name)))
            let all = builtIn + started.tools
            return AgentToolkit.Made(tools: builtIn, sources: [started.source], offered: all.map(\.name), warnings: started.warnings,
                                     toolTimeout: MCPSetup.toolTimeout(all)) { await hub.shutdown() }
        }
    }
}
