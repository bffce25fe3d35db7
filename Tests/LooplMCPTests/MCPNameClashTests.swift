import Foundation
import Loopl
@testable import LooplMCP
import Testing

/// One MCP server cannot take another's tool by choosing names that prefix to the same one.
@Suite struct MCPNameClashTests {
    static func client(_ server: String, tools: [String]) -> MCPClient {
        let client = MCPClient(config: MCPServerConfig(name: server, command: "/nonexistent/server"))
        client.catalog.replace(tools.map { MCPRemoteTool(name: $0, description: "", inputSchema: ["type": "object"]) }, problems: [])
        return client
    }

    @Test func prefixedNamesThatClashAreBothRefused() {
        for order in [["a", "a_b"], ["a_b", "a"]] {
            let clients = order.map { $0 == "a" ? Self.client("a", tools: ["b_c", "other"]) : Self.client("a_b", tools: ["c"]) }
            let (tools, warnings) = MCPToolSource(clients: clients, taken: []).listed()
            #expect(tools.map(\.name) == ["a_other"], "\(order)")
            #expect(warnings.count == 1)
            let warning = warnings.first ?? ""
            #expect(warning.contains("'b_c' of MCP server 'a'") && warning.contains("'c' of MCP server 'a_b'") && warning.contains("a_b_c"), "\(warning)")
        }
    }
}
