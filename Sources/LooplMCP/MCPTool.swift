import Loopl

/// One tool of an MCP server, as a Loopl ``Tool`` named `SERVER_TOOL`.
///
/// Its description and parameters are read from the server's last list on every model turn, so
/// a list the server changed is seen between iterations.
public struct MCPTool: Tool {
    /// The name the model sees.
    public let name: String
    /// The server's name for the tool.
    public let remoteName: String
    public let client: MCPClient

    public init(name: String, remoteName: String, client: MCPClient) {
        self.name = name
        self.remoteName = remoteName
        self.client = client
    }

    public var description: String {
        client.catalog.tool(remoteName)?.description ?? "No longer offered by MCP server '\(client.config.name)'."
    }

    public var parameters: JSONValue {
        client.catalog.tool(remoteName)?.inputSchema ?? ["type": "object", "properties": [:]]
    }

    /// As the server's entry sets it for this tool (``MCPServerConfig/approval(of:)``).
    public var approval: ToolApproval? { client.config.approval(of: remoteName) }

    public func call(_ arguments: JSONObject) async throws -> String {
        try await client.call(remoteName, arguments: arguments)
    }

    /// `SERVER_TOOL`, with characters outside `[A-Za-z0-9_-]` as `_`, kept within 64 characters:
    /// a longer name keeps its first 55 and a hash of the whole.
    public static func name(server: String, tool: String) -> String {
        let full = String((server + "_" + tool).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
        guard full.count > 64 else { return full }
        var hash: UInt32 = 2_166_136_261
        for byte in full.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return full.prefix(55) + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
