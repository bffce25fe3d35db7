import Foundation
import LooplHTTP

/// Where an MCP server listens over HTTP: an `mcpServers` entry with a `url` instead of a `command`.
///
/// Its header values (tokens, often) are never printed: ``description`` shows their names only.
public struct MCPHTTPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Which HTTP transport the server speaks.
    public enum Kind: String, Sendable, Hashable {
        /// Streamable HTTP first, then the 2024-11-05 HTTP+SSE transport (no `type` in the entry).
        case automatic
        /// Streamable HTTP only (`"type": "http"`).
        case streamable = "http"
        /// The 2024-11-05 HTTP+SSE transport only (`"type": "sse"`).
        case sse
    }

    /// The server's one endpoint (Streamable HTTP) or its SSE stream (HTTP+SSE).
    public var url: URL
    public var kind: Kind
    /// Sent on every request, after `${VAR}` expansion.
    public var headers: [String: String]

    public init(url: URL, kind: Kind = .automatic, headers: [String: String] = [:]) {
        self.url = url
        self.kind = kind
        self.headers = headers
    }

    public var description: String {
        let names = headers.keys.sorted().map { "\($0): ***" }
        return "\(kind.rawValue) \(url.redacted)" + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))")
    }
}
