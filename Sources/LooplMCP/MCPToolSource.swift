import Loopl

/// Started MCP servers' tools, named `SERVER_TOOL`, as an ``Agent``'s ``ToolSource``: a server
/// that announced a changed list (`notifications/tools/list_changed`) is listed again before
/// the next model turn, so tools it added, changed or removed take effect then.
public struct MCPToolSource: ToolSource {
    let clients: [MCPClient]
    /// Names already used (the built-in tools'): a server's tool of such a name is skipped.
    let taken: Set<String>

    public func currentTools() async -> [any Tool] {
        for client in clients { await client.refreshIfStale() }
        return listed().tools
    }

    /// The tools as last listed, and a warning for each that a taken or earlier name skips.
    func listed() -> (tools: [MCPTool], warnings: [String]) {
        var names = taken
        var tools: [MCPTool] = []
        var warnings: [String] = []
        for client in clients {
            let server = client.config.name
            for remote in client.catalog.tools {
                let name = MCPTool.name(server: server, tool: remote.name)
                guard names.insert(name).inserted else {
                    warnings.append("MCP server '\(server)' offers '\(remote.name)', whose name \(name) is already taken; it is skipped.")
                    continue
                }
                tools.append(MCPTool(name: name, remoteName: remote.name, client: client))
            }
        }
        return (tools, warnings)
    }
}
