import Foundation
import Loopl

/// One entry of the config's `mcpServers`: how to start an MCP server on stdio.
///
/// Shape: `{"command": "...", "args": [...], "env": {...}, "cwd": "...", "timeoutSeconds": 30,
/// "tools": ["only", "these"], "inheritEnv": ["NAME"], "approval": "ask",
/// "toolApproval": {"TOOL": "allow"}}`. `${VAR}` in `args` and `env` is replaced
/// by the host's environment variable VAR; an unset variable is an error. The server gets
/// ``ChildEnvironment/basic``, the host variables `inheritEnv` names, and `env`; nothing else of
/// the host's environment.
public struct MCPServerConfig: Sendable, Hashable {
    /// The key in `mcpServers`; it prefixes the server's tool names.
    public var name: String
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

    /// Reads one entry; `variables` are what `${VAR}` expands from.
    public init(name: String, json: JSONValue, variables: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let object = json.objectValue else {
            throw ConfigSection.error("MCP server '\(name)' must be an object")
        }
        var reader = ConfigSection(object, context: "MCP server '\(name)'")
        let command = try reader.string("command")
        guard !command.isEmpty else { throw reader.error("'command' is empty") }
        let arguments = try reader.optionalStrings("args") ?? []
        var environment: [String: String] = [:]
        for (key, value) in try reader.optionalObject("env") ?? [:] {
            guard let text = value.stringValue else { throw reader.error("'env.\(key)' must be a string") }
            environment[key] = text
        }
        let directory = try reader.optionalString("cwd")
        let seconds = try reader.optionalDouble("timeoutSeconds") ?? 30
        guard seconds > 0, seconds <= 86_400 else { throw reader.error("'timeoutSeconds' must be from 0 to 86400, not \(seconds)") }
        let only = try reader.optionalStrings("tools")
        let inheritEnv = try reader.optionalStrings("inheritEnv") ?? []
        let approvals = try Self.approvals(&reader)
        try reader.finish()
        func expand(_ text: String) throws -> String { try Self.expand(text, variables: variables, context: reader) }
        self.init(name: name, command: command, arguments: try arguments.map(expand),
                  environment: try environment.mapValues(expand), directory: directory,
                  timeout: .milliseconds(Int64(seconds * 1000)), only: only, inheritEnv: inheritEnv)
        (approval, toolApproval) = approvals
        let expanded = arguments.filter { $0.contains("${") }
        if !expanded.isEmpty {
            warnings.append("MCP server '\(name)': ${VAR} in 'args' (\(expanded.joined(separator: " "))) puts the variable's value on the command line, which every local user can read in /proc; pass secrets through 'env' instead")
        }
    }

    /// Every entry of a config's `mcpServers`, sorted by name.
    public static func all(_ servers: JSONObject, variables: [String: String] = ProcessInfo.processInfo.environment) throws -> [MCPServerConfig] {
        try servers.keys.sorted().map { name in
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ConfigSection.error("MCP server name '\(name)' may hold only letters, digits, '-' and '_'")
            }
            return try MCPServerConfig(name: name, json: servers[name] ?? .null, variables: variables)
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
