import Foundation
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

    /// The most UTF-8 bytes of a tool's description that reach the prompt; the rest is cut.
    static let maxDescriptionBytes = 4096
    /// The most bytes of a tool's `inputSchema` (as JSON); a tool with a larger one is dropped.
    static let maxSchemaBytes = 65536
    /// The longest tool name; a tool with a longer one, or with a character outside
    /// `[A-Za-z0-9_.-]`, is dropped.
    static let maxNameLength = 64

    /// Reads one `tools/list` entry of the server `server` (a third party: its text is bounded);
    /// throws the reason it cannot be used. A name or schema out of bounds drops the tool (nil),
    /// a long description is cut; each with a warning through ``Warnings`` naming the server and the tool.
    static func read(_ entry: JSONValue, server: String) throws(LooplError) -> MCPRemoteTool? {
        guard let name = entry["name"]?.stringValue, !name.isEmpty else {
            throw LooplError(.protocolViolation, "a tool has no name: \(Mailbox.excerpt(entry.jsonText()))")
        }
        let shown = "MCP server '\(server)': tool \(Mailbox.excerpt(JSONValue.string(name).jsonText()))"
        guard name.unicodeScalars.count <= maxNameLength, name.unicodeScalars.allSatisfy(isNameCharacter) else {
            Warnings.emit("\(shown) is dropped: a tool name is at most \(maxNameLength) characters of A-Z, a-z, 0-9, '_', '.' and '-'.")
            return nil
        }
        let schema = entry["inputSchema"] ?? ["type": "object", "properties": [:]]
        let schemaBytes = schema.jsonText().utf8.count
        guard schemaBytes <= maxSchemaBytes else {
            Warnings.emit("\(shown) is dropped: its inputSchema takes \(schemaBytes) bytes, more than \(maxSchemaBytes).")
            return nil
        }
        if let problem = problem(in: schema) { throw LooplError(.protocolViolation, "tool '\(name)' has an invalid inputSchema: \(problem)") }
        var description = entry["description"]?.stringValue ?? ""
        if description.utf8.count > maxDescriptionBytes {
            Warnings.emit("\(shown): its description of \(description.utf8.count) bytes is cut to \(maxDescriptionBytes).")
            description = prefix(of: description, bytes: maxDescriptionBytes)
        }
        return MCPRemoteTool(name: name, description: description, inputSchema: schema)
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_.-".unicodeScalars.contains(scalar))
    }

    /// The longest start of `text` that takes at most `bytes` UTF-8 bytes and ends between scalars.
    static func prefix(of text: String, bytes: Int) -> String {
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: min(bytes, text.utf8.count))
        while end > text.utf8.startIndex, end.samePosition(in: text.unicodeScalars) == nil { end = text.utf8.index(before: end) }
        return String(text[..<end])
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
