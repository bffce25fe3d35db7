import Loopl

/// The tools a run of `/loopl/v1/runs` may enable, by the names `loopl run --tools` and `--mcp`
/// take, and how to make them.
package struct AgentToolkit: Sendable {
    /// The tools of one run, and what ends them when the run is over.
    package struct Made: Sendable {
        package var tools: [any Tool]
        package var sources: [any ToolSource]
        /// The names of every tool offered at the start: ``tools``' and the sources'.
        package var offered: [String]
        /// Warnings to show before the run (a server that did not start).
        package var warnings: [String]
        /// The agent's time limit per call.
        package var toolTimeout: Duration
        /// Stops what was started for the run (MCP servers).
        package var close: @Sendable () async -> Void

        package init(tools: [any Tool], sources: [any ToolSource] = [], offered: [String]? = nil, warnings: [String] = [],
                     toolTimeout: Duration = .seconds(30), close: @escaping @Sendable () async -> Void = {}) {
            self.tools = tools
            self.sources = sources
            self.offered = offered ?? tools.map(\.name)
            self.warnings = warnings
            self.toolTimeout = toolTimeout
            self.close = close
        }
    }

    /// The built-in tool names (`calc`, `time`, `files`).
    package let builtIn: [String]
    /// The configured MCP servers' names.
    package let mcpServers: [String]
    /// Makes the tools `tools` and those of the MCP servers `mcp`; throws for a name it does not know.
    package let make: @Sendable (_ tools: [String], _ mcp: [String]) async throws -> Made

    package init(builtIn: [String], mcpServers: [String],
                 make: @escaping @Sendable (_ tools: [String], _ mcp: [String]) async throws -> Made) {
        self.builtIn = builtIn
        self.mcpServers = mcpServers
        self.make = make
    }

    /// No tools at all.
    package static let none = AgentToolkit(builtIn: [], mcpServers: []) { tools, mcp in
        if let name = (tools + mcp).first { throw APIError.invalidRequest("Unknown tool '\(name)': this server offers none.", param: "tools") }
        return Made(tools: [])
    }
}
