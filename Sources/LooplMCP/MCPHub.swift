import Loopl

/// The configured MCP servers of one run: starts those asked for, makes their tools, and ends them.
public final class MCPHub: Sendable {
    public let clients: [MCPClient]

    /// What starting the servers gave.
    public struct Started: Sendable {
        /// The tools, named `SERVER_TOOL`, in server-name order.
        public var tools: [MCPTool] = []
        /// Servers that could not start, each with the error.
        public var failures: [(server: String, error: LooplError)] = []
        /// Sentences for the user: skipped tools, name collisions, unusable list entries.
        public var warnings: [String] = []
        /// The started servers' tools as they change: give it to an ``Agent`` as a tool source.
        public var source = MCPToolSource(clients: [], taken: [])
    }

    public init(configs: [MCPServerConfig]) {
        clients = configs.map(MCPClient.init)
    }

    /// The servers from a config's raw `mcpServers` object, read from a file in `folder`.
    public convenience init(servers: JSONObject, folder: String? = nil) throws {
        self.init(configs: try MCPServerConfig.all(servers, folder: folder))
    }

    /// The clients for `names` ("all" for every one); an unknown name is an error listing the configured ones.
    public func select(_ names: [String]) throws -> [MCPClient] {
        if names == ["all"] { return clients }
        return try names.map { name in
            guard let client = clients.first(where: { $0.config.name == name }) else {
                let known = clients.map(\.config.name)
                throw LooplError(.invalidConfiguration, "No MCP server named '\(name)' in the config's mcpServers (configured: \(known.isEmpty ? "none" : known.joined(separator: ", "))).")
            }
            return client
        }
    }

    /// Starts `clients` at once and makes their tools. A name already in `taken` (a built-in
    /// tool's, or an earlier server's) skips the later tool with a warning.
    public func start(_ clients: [MCPClient], taken: Set<String> = []) async -> Started {
        let outcomes = await withTaskGroup(of: (Int, LooplError?).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    do {
                        try await client.start()
                        return (index, nil)
                    } catch let error as LooplError {
                        return (index, error)
                    } catch {
                        return (index, LooplError(.processFailed, "MCP server '\(client.config.name)' did not start: \(error)."))
                    }
                }
            }
            var outcomes = [LooplError?](repeating: nil, count: clients.count)
            for await (index, error) in group { outcomes[index] = error }
            return outcomes
        }
        var started = Started()
        started.warnings = clients.flatMap { $0.config.warnings.map { $0 + "." } }
        var running: [MCPClient] = []
        for (client, error) in zip(clients, outcomes) {
            let server = client.config.name
            if let error {
                started.failures.append((server, error))
                started.warnings.append("MCP server '\(server)' is not available, so its tools are missing: \(error.message)")
                await client.shutdown()
                continue
            }
            for problem in client.catalog.problems {
                started.warnings.append("MCP server '\(server)': \(problem).")
            }
            running.append(client)
        }
        started.source = MCPToolSource(clients: running, taken: taken)
        let (tools, collisions) = started.source.listed()
        started.tools = tools
        started.warnings += collisions
        return started
    }

    /// Ends every server.
    public func shutdown() async {
        await withTaskGroup(of: Void.self) { group in
            for client in clients { group.addTask { await client.shutdown() } }
        }
    }
}
