/// One turn of a conversation.
///
/// Its JSON form (Codable, ``templateValue``) is the OpenAI-style message that chat templates
/// expect, so saved conversations, the stdio protocol and templates share one shape.
public enum Message: Sendable, Hashable, Codable {
    case system(String)
    case user(String)
    /// What the model said: its visible text, the tools it called, and the thinking it wrote
    /// before them (nil when it did not think; `reasoning_content` in the JSON form).
    case assistant(text: String, toolCalls: [ToolCall], reasoning: String? = nil)
    /// A tool's result, paired with the call by `callId`.
    case tool(result: String, callId: String, name: String)

    /// A plain assistant answer without tool calls.
    public static func assistant(_ text: String) -> Message { .assistant(text: text, toolCalls: []) }

    /// "system", "user", "assistant" or "tool".
    public var role: String {
        switch self {
        case .system: "system"
        case .user: "user"
        case .assistant: "assistant"
        case .tool: "tool"
        }
    }

    /// The text of the turn: the prompt, the answer or the tool's result.
    public var text: String {
        switch self {
        case .system(let text), .user(let text), .assistant(let text, _, _), .tool(let text, _, _): text
        }
    }

    /// The calls of an assistant turn; empty for the other roles.
    public var toolCalls: [ToolCall] {
        if case .assistant(_, let calls, _) = self { calls } else { [] }
    }

    /// The thinking of an assistant turn; nil for the other roles and for a turn without it.
    public var reasoning: String? {
        if case .assistant(_, _, let reasoning) = self { reasoning } else { nil }
    }

    /// The OpenAI-style message: `role` and `content`; on an assistant turn that thought,
    /// `reasoning_content`; with calls, `tool_calls` (and `content` null when there is no text); on
    /// a result, `tool_call_id` and `name`.
    public var templateValue: JSONValue {
        switch self {
        case .system(let text), .user(let text):
            return ["role": .string(role), "content": .string(text)]
        case .assistant(let text, let calls, let reasoning):
            var object: JSONObject = ["role": "assistant", "content": calls.isEmpty || !text.isEmpty ? .string(text) : .null]
            if let reasoning, !reasoning.isEmpty { object["reasoning_content"] = .string(reasoning) }
            if !calls.isEmpty { object["tool_calls"] = .array(calls.map(\.templateValue)) }
            return .object(object)
        case .tool(let result, let callId, let name):
            return ["role": "tool", "tool_call_id": .string(callId), "name": .string(name), "content": .string(result)]
        }
    }

    /// ``templateValue`` as a dictionary whose values are ``JSONValue``s.
    public var templateDictionary: [String: any Sendable] {
        var dictionary: [String: any Sendable] = [:]
        for (key, value) in templateValue.objectValue ?? [:] { dictionary[key] = value }
        return dictionary
    }

    /// Reads the shape of ``templateValue``. Content may be a string, null, or a list of
    /// `{"type": "text", "text": ...}` parts. An assistant's thinking is read from
    /// `reasoning_content`, else `reasoning` (vLLM) or `thinking` (Ollama).
    public init(templateValue value: JSONValue) throws {
        guard let role = value["role"]?.stringValue else {
            throw LooplError(.invalidJSON, "A message has no role: \(value.jsonText()).")
        }
        let content = try Message.contentText(value["content"], role: role)
        switch role {
        case "system", "developer": self = .system(content)
        case "user": self = .user(content)
        case "assistant":
            let calls = try (value["tool_calls"]?.arrayValue ?? []).map(ToolCall.init(templateValue:))
            let reasoning = ["reasoning_content", "reasoning", "thinking"].lazy.compactMap { value[$0]?.stringValue }.first
            self = .assistant(text: content, toolCalls: calls, reasoning: reasoning?.isEmpty == false ? reasoning : nil)
        case "tool":
            self = .tool(result: content, callId: value["tool_call_id"]?.stringValue ?? "",
                         name: value["name"]?.stringValue ?? "")
        default:
            throw LooplError(.invalidJSON, "Unknown message role '\(role)': use system, user, assistant or tool.")
        }
    }

    private static func contentText(_ content: JSONValue?, role: String) throws -> String {
        switch content {
        case nil, .null?: return ""
        case .string(let text)?: return text
        case .array(let parts)?:
            return parts.compactMap { $0["text"]?.stringValue }.joined()
        default:
            throw LooplError(.invalidJSON, "The content of a \(role) message must be a string.")
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(templateValue: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try templateValue.encode(to: encoder)
    }
}
