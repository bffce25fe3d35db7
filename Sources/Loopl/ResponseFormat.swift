/// What shape the model's answer must take: free text, any JSON object, or JSON that a schema accepts.
public enum ResponseFormat: Sendable, Hashable {
    case text
    case jsonObject
    /// A JSON Schema (the schema itself, not OpenAI's `{"name", "schema"}` wrapper).
    case jsonSchema(JSONValue)

    /// OpenAI's `response_format`: `{"type": "text"}`, `{"type": "json_object"}`, or
    /// `{"type": "json_schema", "json_schema": {"name": ..., "schema": {...}}}`.
    public var openAIValue: JSONValue {
        switch self {
        case .text: ["type": "text"]
        case .jsonObject: ["type": "json_object"]
        case .jsonSchema(let schema): ["type": "json_schema", "json_schema": ["name": "response", "schema": schema]]
        }
    }

    /// Reads OpenAI's `response_format`, and llama-server's `{"type": "json_object", "schema": {...}}`.
    public init(openAIValue value: JSONValue) throws {
        switch value["type"]?.stringValue {
        case "text"?: self = .text
        case "json_object"?: self = value["schema"].map { .jsonSchema($0) } ?? .jsonObject
        case "json_schema"?:
            guard let schema = value["json_schema"]?["schema"] ?? value["schema"] else {
                throw LooplError(.invalidRequest, "A `json_schema` response format has no `schema`.")
            }
            self = .jsonSchema(schema)
        default:
            throw LooplError(.invalidRequest, "The response format \(value.jsonText()) is not text, json_object or json_schema.")
        }
    }
}

extension ResponseFormat: Codable {
    /// The Codable form is OpenAI's `response_format` object.
    public init(from decoder: any Decoder) throws {
        try self.init(openAIValue: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try openAIValue.encode(to: encoder)
    }
}
