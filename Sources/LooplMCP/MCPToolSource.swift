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

    /// The tools as last listed, and a warning for each that a taken name skips. Two servers'
    /// tools that come to the same name (`a` + `b_c` and `a_b` + `c`) are both refused, with a
    /// warning naming both, so that neither server can take the other's tool.
    func listed() -> (tools: [MCPTool], warnings: [String]) {
        var owners: [String: [(server: String, tool: String)]] = [:]
        for client in clients {
            for remote in client.catalog.tools {
                owners[MCPTool.name(server: client.config.name, tool: remote.name), default: []].append((client.config.name, remote.name))
            }
        }
        var names = taken
        var tools: [MCPTool] = []
        var warnings: [String] = []
        for client in clients {
            let server = client.config.name
            for remote in client.catalog.tools {
                let name = MCPTool.name(server: server, tool: remote.name)
                if let claims = owners[name], Set(claims.map(\.server)).count > 1 {
                    if claims.first?.server == server, claims.first?.tool == remote.name {
                        let who = claims.map { "'\($0.tool)' of MCP server '\($0.server)'" }.joined(separator: " and ")
                        warnings.append("The tools \(who) would both be named \(name); neither is offered. Rename a server in mcpServers.")
                    }
                    continue
                }
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
