/// What the model is told about a tool: its name, what it does, and its parameters as a JSON Schema.
public struct ToolSpec: Sendable, Hashable, Codable {
    public var name: String
    public var description: String
    /// A JSON Schema object, usually `{"type": "object", "properties": {...}, "required": [...]}`.
    public var parameters: JSONValue

    public init(name: String, description: String, parameters: JSONValue = ["type": "object", "properties": [:]]) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    /// The OpenAI `tools` entry: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    public var openAIValue: JSONValue {
        ["type": "function",
         "function": ["name": .string(name), "description": .string(description), "parameters": parameters]]
    }

    /// Reads an OpenAI `tools` entry (or its bare `function` object).
    public init(openAIValue value: JSONValue) throws {
        let function = value["function"] ?? value
        guard let name = function["name"]?.stringValue else {
            throw LooplError(.invalidJSON, "A tool definition has no name: \(value.jsonText()).")
        }
        self.init(name: name, description: function["description"]?.stringValue ?? "",
                  parameters: function["parameters"] ?? ["type": "object", "properties": [:]])
    }

    public init(from decoder: any Decoder) throws {
        try self.init(openAIValue: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try openAIValue.encode(to: encoder)
    }
}
