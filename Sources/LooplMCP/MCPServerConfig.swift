import Foundation
import Loopl
import LooplHTTP

/// One entry of the config's `mcpServers`: how to start an MCP server on stdio, or where one
/// listens over HTTP.
///
/// Shape: `{"command": "...", "args": [...], "env": {...}, "cwd": "...", "timeoutSeconds": 30,
/// "tools": ["only", "these"], "inheritEnv": ["NAME"], "approval": "ask", "toolApproval":
/// {"TOOL": "allow"}}`, or over HTTP `{"url": "...", "type": "http" | "sse", "headers": {...},
/// "timeoutSeconds": 30, "tools": [...], "approval": ..., "toolApproval": ...}`. `${VAR}` in
/// `args`, `env` and `headers` is replaced by the host's environment variable VAR; an unset
/// variable is an error. The server gets ``ChildEnvironment/basic``, the host variables
/// `inheritEnv` names, and `env`; nothing else of the host's environment.
public struct MCPServerConfig: Sendable, Hashable {
    /// The key in `mcpServers`; it prefixes the server's tool names.
    public var name: String
    /// Empty for a server over HTTP.
    public var command: String
    public var arguments: [String]
    /// Set in the server's environment (overriding what it inherits).
    public var environment: [String: String]
    /// Host variables the server inherits beyond ``ChildEnvironment/basic``.
    public var inheritEnv: [String]
    /// Sentences for the user about the entry, such as a `${VAR}` that puts a value into `args`.
    public var warnings: [String] = []
    /// The folder the server starts in; nil for the host's.
    public var directory: String?
    /// Bounds the start and handshake, `tools/list`, and each call.
    public var timeout: Duration
    /// When set, only these of the server's tools (by the server's names) are used.
    public var only: [String]?
    /// Where the server listens, for a server over HTTP; nil for one on stdio.
    public var http: MCPHTTPEndpoint?
    /// Whether the server's calls wait for approval; nil: as the run's default.
    public var approval: ToolApproval?
    /// Per tool (by the server's name), in place of ``approval``.
    public var toolApproval: [String: ToolApproval] = [:]

    public init(name: String, command: String, arguments: [String] = [], environment: [String: String] = [:],
                directory: String? = nil, timeout: Duration = .seconds(30), only: [String]? = nil,
                inheritEnv: [String] = []) {
        self.name = name
        self.inheritEnv = inheritEnv
        self.command = command
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
        self.timeout = timeout
        self.only = only
    }

    /// A server over HTTP.
    public init(name: String, http: MCPHTTPEndpoint, timeout: Duration = .seconds(30), only: [String]? = nil) {
        self.init(name: name, command: "", timeout: timeout, only: only)
        self.http = http
    }

    /// Reads one entry of the config file in `folder`, which its `cwd` (else its `command`, when
    /// that is a path) is relative to; `variables` are what `${VAR}` expands from.
    public init(name: String, json: JSONValue, folder: String? = nil,
                variables: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let object = json.objectValue else {
            throw ConfigSection.error("MCP server '\(name)' must be an object")
        }
        var reader = ConfigSection(object, context: "MCP server '\(name)'", folder: folder)
        try self.init(name: name, reading: &reader, variables: variables)
    }

    /// Reads the entry in `reader`.
    package init(name: String, reading reader: inout ConfigSection, variables: [String: String]) throws {
        if reader.object["url"] != nil {
            try self.init(name: name, http: &reader, variables: variables)
            return
        }
        let directory = try reader.optionalPath("cwd")
        // A relative program is relative to `cwd` when there is one, where it runs.
        let command = try (directory == nil ? reader.optionalProgram("command") : reader.optionalString("command")) ?? ""
        guard !command.isEmpty else { throw reader.error("'command' is missing or empty") }
        let arguments = try reader.optionalStrings("args") ?? []
        var environment: [String: String] = [:]
        for (key, value) in try reader.optionalObject("env") ?? [:] {
            guard let text = value.stringValue else { throw reader.error("'env.\(key)' must be a string") }
            environment[key] = text
        }
        let seconds = try Self.timeoutSeconds(&reader)
        let only = try reader.optionalStrings("tools")
        let inheritEnv = try reader.optionalStrings("inheritEnv") ?? []
        let approvals = try Self.approvals(&reader)
        try reader.finish()
        let context = reader
        func expand(_ text: String) throws -> String { try Self.expand(text, variables: variables, context: context) }
        self.init(name: name, command: command, arguments: try arguments.map(expand),
                  environment: try environment.mapValues(expand), directory: directory,
                  timeout: .milliseconds(Int64(seconds * 1000)), only: only, inheritEnv: inheritEnv)
        (approval, toolApproval) = approvals
        let expanded = arguments.filter { $0.contains("${") && $0.contains("}") }
        if !expanded.isEmpty {
            warnings.append("MCP server '\(name)': ${VAR} in 'args' (\(expanded.joined(separator: " "))) puts the variable's value on the command line, which every local user can read in /proc; pass secrets through 'env' instead")
        }
    }

    /// Reads an entry with a `url`.
    private init(name: String, http reader: inout ConfigSection, variables: [String: String]) throws {
        for key in ["command", "args", "env", "cwd", "inheritEnv"] where reader.object[key] != nil {
            throw reader.error("it has both 'url' and '\(key)': give 'command' for a server on stdio, or 'url' for one over HTTP, not both")
        }
        let text = try reader.string("url")
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw reader.error("'url' must be an http:// or https:// URL, not \(URL.redacting(text))")
        }
        var kind = MCPHTTPEndpoint.Kind.automatic
        if let type = try reader.optionalString("type") {
            guard let chosen = MCPHTTPEndpoint.Kind(rawValue: type), chosen != .automatic else {
                throw reader.error("'type' must be \"http\" (Streamable HTTP) or \"sse\" (HTTP+SSE), not \"\(type)\"")
            }
            kind = chosen
        }
        var headers: [String: String] = [:]
        for (key, value) in try reader.optionalObject("headers") ?? [:] {
            guard let text = value.stringValue else { throw reader.error("'headers.\(key)' must be a string") }
            guard !key.isEmpty, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }),
                  !text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw reader.error("header '\(key)' is not a valid HTTP header")
            }
            headers[key] = text
        }
        let seconds = try Self.timeoutSeconds(&reader)
        let only = try reader.optionalStrings("tools")
        let approvals = try Self.approvals(&reader)
        try reader.finish()
        let context = reader
        let expanded = try headers.mapValues { value in
            let result = try Self.expand(value, variables: variables, context: context)
            guard !result.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw context.error("a header's ${VAR} expands to a value with a line break")
            }
            return result
        }
        self.init(name: name, http: MCPHTTPEndpoint(url: url, kind: kind, headers: expanded),
                  timeout: .milliseconds(Int64(seconds * 1000)), only: only)
        (approval, toolApproval) = approvals
    }

    private static func timeoutSeconds(_ reader: inout ConfigSection) throws -> Double {
        let seconds = try reader.optionalDouble("timeoutSeconds") ?? 30
        guard seconds > 0, seconds <= 86_400 else { throw reader.error("'timeoutSeconds' must be from 0 to 86400, not \(seconds)") }
        return seconds
    }

    /// Every entry of a config's `mcpServers`, sorted by name.
    public static func all(_ servers: JSONObject, folder: String? = nil,
                           variables: [String: String] = ProcessInfo.processInfo.environment) throws -> [MCPServerConfig] {
        try servers.keys.sorted().map { name in
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ConfigSection.error("MCP server name '\(name)' may hold only letters, digits, '-' and '_'")
            }
            return try MCPServerConfig(name: name, json: servers[name] ?? .null, folder: folder, variables: variables)
        }
    }

    /// `text` with each `${VAR}` replaced by the variable's value.
    static func expand(_ text: String, variables: [String: String], context: ConfigSection) throws -> String {
        var result = ""
        var rest = text[...]
        while let open = rest.range(of: "${") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw context.error("'\(text)' has a '${' without its '}'")
            }
            let name = String(rest[open.upperBound..<close])
            guard let value = variables[name] else {
                throw context.error("'\(text)' names ${\(name)}, which is not set in the environment")
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}

extension MCPServerConfig {
    /// Whether a call of the server's tool `tool` waits for approval; nil: as the run's default.
    public func approval(of tool: String) -> ToolApproval? { toolApproval[tool] ?? approval }

    /// The entry's `approval`, and its `toolApproval` object, each of whose values is "ask" or "allow".
    static func approvals(_ reader: inout ConfigSection) throws -> (ToolApproval?, [String: ToolApproval]) {
        let approval = try reader.optional("approval", as: ToolApproval.self)
        let tools = try (reader.optionalObject("toolApproval") ?? [:]).reduce(into: [String: ToolApproval]()) { approvals, entry in
            guard let approval = ToolApproval(config: entry.value) else {
                throw reader.error("'toolApproval.\(entry.key)' must be \(ToolApproval.expectation)")
            }
            approvals[entry.key] = approval
        }
        return (approval, tools)
    }
}
