import Loopl
import Synchronization

/// One tool as an MCP server lists it.
public struct MCPRemoteTool: Sendable, Hashable {
    /// The server's name for it.
    public var name: String
    public var description: String
    /// Its `inputSchema`, checked to be an object schema.
    public var inputSchema: JSONValue
}

/// What a server offers, as last listed: shared by the client, which refreshes it, and by the
/// tools, which read it on every model turn.
public final class MCPCatalog: Sendable {
    private struct State {
        var tools: [MCPRemoteTool] = []
        var problems: [String] = []
        var stale = false
    }

    private let state = Mutex(State())

    /// The tools in the server's order.
    public var tools: [MCPRemoteTool] { state.withLock { $0.tools } }
    /// Entries of the last list that were skipped, each with why.
    public var problems: [String] { state.withLock { $0.problems } }

    func tool(_ name: String) -> MCPRemoteTool? { state.withLock { $0.tools.first { $0.name == name } } }

    func replace(_ tools: [MCPRemoteTool], problems: [String]) {
        state.withLock { $0 = State(tools: tools, problems: problems, stale: false) }
    }

    /// The server said its list changed.
    func markStale() { state.withLock { $0.stale = true } }

    var isStale: Bool { state.withLock { $0.stale } }

    /// Reads one `tools/list` entry; throws the reason it cannot be used.
    static func read(_ entry: JSONValue) throws(LooplError) -> MCPRemoteTool {
        guard let name = entry["name"]?.stringValue, !name.isEmpty else {
            throw LooplError(.protocolViolation, "a tool has no name: \(Mailbox.excerpt(entry.jsonText()))")
        }
        let schema = entry["inputSchema"] ?? ["type": "object", "properties": [:]]
        if let problem = problem(in: schema) { throw LooplError(.protocolViolation, "tool '\(name)' has an invalid inputSchema: \(problem)") }
        return MCPRemoteTool(name: name, description: entry["description"]?.stringValue ?? "", inputSchema: schema)
    }

    /// What keeps `schema` from being a tool's parameters: it must be an object schema.
    static func problem(in schema: JSONValue) -> String? {
        guard let object = schema.objectValue else { return "it is not a JSON object" }
        if let type = object["type"], type != "object" { return "its type is \(type.jsonText()), not \"object\"" }
        if let properties = object["properties"] {
            guard let fields = properties.objectValue else { return "its properties are not an object" }
            if let bad = fields.first(where: { $0.value.objectValue == nil && $0.value.boolValue == nil }) {
                return "property '\(bad.key)' is not a schema"
            }
        }
        if let required = object["required"] {
            guard let names = required.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                return "its required is not a list of names"
            }
        }
        return nil
    }
}
