import Foundation
import Loopl
import LooplHTTP
import LooplMCP

/// `loopl tools`: the built-in tools and every configured MCP server's, with their schemas.
struct ToolsCommand: Command {
    static let name = "tools"
    static let abstract = "List the built-in tools and the configured MCP servers' tools."
    static let help = """
        List every built-in tool and every tool of the MCP servers in the config's mcpServers,
        with their parameters' JSON Schemas. Each server is started, asked for its tools, and
        stopped; a server that fails is listed with why, and the exit status is then 1.

        USAGE: loopl tools [--config FILE] [--json]

        OPTIONS:
        \(ListingOptions.help(json: #": {"builtIn": [...], "servers": [...]}"#))

        """

    var options: ListingOptions

    init(arguments: inout Arguments) throws(UsageError) {
        options = try ListingOptions(arguments: &arguments)
    }

    func run(_ console: Console) async throws -> ExitCode {
        let root = FileManager.default.currentDirectoryPath
        let settings = try BuiltInToolSet.all.map { ($0.name, try $0.tools(root: root)) }
        let config = try BackendFactory.config(path: options.config, console: console)
        let hub = try MCPHub(servers: config.mcpServers, folder: config.folder)
        let builtIn = settings.flatMap { option, tools in tools.map { (option, $0) } }
        let started = await hub.start(hub.clients, taken: Set(builtIn.map(\.1.name)))
        await hub.shutdown()
        var servers: [JSONValue] = []
        var text = "Built-in tools (enable with --tools):\n"
        for (option, tool) in builtIn { text += Self.describe(tool, note: "--tools \(option)") }
        for client in hub.clients {
            let name = client.config.name
            let failure = started.failures.first { $0.server == name }?.error
            let tools = started.tools.filter { $0.client === client }
            let revision = await client.revision
            var entry: JSONObject = ["name": .string(name)]
            if let http = client.config.http {
                entry["url"] = .string(http.url.redacted)
                entry["type"] = .string(http.kind.rawValue)
            } else {
                entry["command"] = .string(client.config.command)
            }
            if let failure {
                entry["error"] = .string(failure.message)
                text += "\nMCP server '\(name)': failed: \(failure.message)\n"
            } else {
                entry["revision"] = revision.map(JSONValue.string) ?? .null
                entry["problems"] = .array(client.catalog.problems.map(JSONValue.string))
                text += "\nMCP server '\(name)' (enable with --mcp \(name); revision \(revision ?? "?"), \(tools.count) tools):\n"
                for problem in client.catalog.problems { text += "  skipped: \(problem)\n" }
                for tool in tools { text += Self.describe(tool, note: "server's name: \(tool.remoteName)") }
            }
            entry["tools"] = .array(tools.map { .object(Self.entry($0)) })
            servers.append(.object(entry))
        }
        if hub.clients.isEmpty { text += "\nNo MCP servers are configured (the config's mcpServers).\n" }
        for warning in started.warnings where !warning.contains("is not available") { text += "warning: \(warning)\n" }
        if options.json {
            let value: JSONValue = ["builtIn": .array(builtIn.map { option, tool in
                var entry = Self.entry(tool)
                entry["enable"] = .string("--tools \(option)")
                return .object(entry)
            }), "servers": .array(servers)]
            console.out(value.jsonText() + "\n")
        } else {
            console.out(text)
        }
        return started.failures.isEmpty ? .success : .failure
    }

    private static func entry(_ tool: any Tool) -> JSONObject {
        ["name": .string(tool.name), "description": .string(tool.description), "parameters": tool.parameters]
    }

    private static func describe(_ tool: any Tool, note: String) -> String {
        "  \(tool.name) (\(note)): \(tool.description)\n    parameters: \(tool.parameters.jsonText())\n"
    }
}
