import Loopl

/// Reads Ollama chat `messages` into Loopl ``Message``s.
///
/// Roles `system`, `user`, `assistant` and `tool` (in any case). `content` is a string (absent:
/// empty). An assistant turn's `thinking` is its reasoning and its `tool_calls` are
/// `{"id"?, "function": {"name", "arguments"}}` with the arguments as an object (a JSON string
/// holding one is taken too). A `tool` turn names its call by `tool_call_id`, else by `tool_name`
/// (the earliest unanswered call of that name), else it answers the earliest unanswered call.
/// `images` are refused with a 400: no backend here reads images.
package enum OllamaConversation {
    /// The conversation in `field`, an array (empty: none).
    package static func read(_ field: RequestField) throws(APIError) -> [Message] {
        var messages: [Message] = []
        for entry in try field.array() {
            _ = try entry.object()
            if let images = entry.member("images"), try !images.array().isEmpty {
                throw images.error("holds images, which are not supported: no model served here reads images; send text only.")
            }
            let roleField = try entry.required("role")
            let content = try entry.member("content")?.string() ?? ""
            switch try roleField.string().lowercased() {
            case "system": messages.append(.system(content))
            case "user": messages.append(.user(content))
            case "assistant": messages.append(try assistant(entry, content: content))
            case "tool": messages.append(try tool(entry, content: content, earlier: messages))
            case let role: throw roleField.error("is \"\(role)\": use system, user, assistant or tool.")
            }
        }
        return messages
    }

    private static func assistant(_ entry: RequestField, content: String) throws(APIError) -> Message {
        var calls: [ToolCall] = []
        for call in try entry.member("tool_calls")?.array() ?? [] {
            let function = try call.object().required("function").object()
            calls.append(ToolCall(id: try call.member("id")?.string() ?? ToolCall.makeId(), name: try function.required("name").string(),
                                  arguments: try ChatConversation.arguments(function.member("arguments"))))
        }
        let thinking = try entry.member("thinking")?.string()
        return .assistant(text: content, toolCalls: calls, reasoning: thinking?.isEmpty == false ? thinking : nil)
    }

    private static func tool(_ entry: RequestField, content: String, earlier: [Message]) throws(APIError) -> Message {
        let id = try entry.member("tool_call_id")?.string()
        let name = try entry.member("tool_name")?.string()
        let answered = Set(earlier.compactMap { message -> String? in
            if case .tool(_, let callId, _) = message { callId } else { nil }
        })
        let calls = earlier.flatMap(\.toolCalls)
        let call = calls.first { $0.id == id } ?? calls.first { !answered.contains($0.id) && (name == nil || $0.name == name) }
        return .tool(result: content, callId: id ?? call?.id ?? ToolCall.makeId(), name: name ?? call?.name ?? "")
    }
}
