/// Something the model can call: a name, what it does, its parameters, and the work itself.
public protocol Tool: Sendable {
    var name: String { get }
    var description: String { get }
    /// A JSON Schema for the arguments, usually `{"type": "object", "properties": ..., "required": ...}`.
    var parameters: JSONValue { get }
    /// Does the work and returns what the model reads; a thrown error is reported to the model as a failed call.
    func call(_ arguments: JSONObject) async throws -> String
    /// Whether a call waits for a person's approval; nil: as ``AgentOptions/approval`` says.
    var approval: ToolApproval? { get }
}

extension Tool {
    /// What the model is told about this tool.
    public var spec: ToolSpec { ToolSpec(name: name, description: description, parameters: parameters) }

    public var approval: ToolApproval? { nil }
}

/// A tool made from a closure.
public struct FunctionTool: Tool {
    public let name: String
    public let description: String
    public let parameters: JSONValue
    private let body: @Sendable (JSONObject) async throws -> String

    public init(name: String, description: String, parameters: JSONValue = ["type": "object", "properties": [:]],
                _ body: @escaping @Sendable (JSONObject) async throws -> String) {
        self.name = name
        self.description = description
        self.parameters = parameters
        self.body = body
    }

    public func call(_ arguments: JSONObject) async throws -> String { try await body(arguments) }
}
