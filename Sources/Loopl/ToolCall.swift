/// A request from the model to run one tool.
public struct ToolCall: Sendable, Hashable, Codable, Identifiable {
    /// The id that pairs the call with its result.
    public var id: String
    /// The tool's name.
    public var name: String
    /// The arguments, as the model wrote them (key order kept).
    public var arguments: JSONObject

    public init(id: String = ToolCall.makeId(), name: String, arguments: JSONObject = [:]) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    /// A fresh id: "call_" and 8 random letters and digits.
    public static func makeId() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var rng = SystemRandomNumberGenerator()
        return "call_" + String((0..<8).map { _ in alphabet[Int(rng.next(upperBound: UInt(alphabet.count)))] })
    }

    /// The OpenAI-style entry that chat templates expect: `id`, `type`, `function.name`,
    /// and `function.arguments` as an object.
    public var templateValue: JSONValue {
        ["id": .string(id), "type": "function",
         "function": ["name": .string(name), "arguments": .object(arguments)]]
    }

    /// Reads the shape of ``templateValue``; `arguments` may also be a JSON string (the OpenAI HTTP wire).
    public init(templateValue value: JSONValue) throws {
        let function = value["function"] ?? value
        guard let name = function["name"]?.stringValue else {
            throw LooplError(.invalidJSON, "A tool call has no function name: \(value.jsonText()).")
        }
        var arguments = JSONObject()
        switch function["arguments"] {
        case .object(let object)?: arguments = object
        case .string(let text)?:
            let trimmed = text.trimmingWhitespace()
            if !trimmed.isEmpty {
                let parsed: JSONValue
                do { parsed = try JSONValue(parsing: trimmed) } catch { throw LooplError(error) }
                guard case .object(let object) = parsed else {
                    throw LooplError(.invalidJSON, "The arguments of tool call '\(name)' are not a JSON object: \(text).")
                }
                arguments = object
            }
        case nil, .null?: break
        default:
            throw LooplError(.invalidJSON, "The arguments of tool call '\(name)' are not a JSON object.")
        }
        self.init(id: value["id"]?.stringValue ?? ToolCall.makeId(), name: name, arguments: arguments)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(templateValue: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try templateValue.encode(to: encoder)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
