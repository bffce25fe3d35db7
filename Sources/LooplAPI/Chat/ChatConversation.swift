import Loopl

/// Reads OpenAI chat `messages` into Loopl ``Message``s.
///
/// Roles `system` and `developer` become ``Message/system(_:)``, `user` ``Message/user(_:)``,
/// `assistant` ``Message/assistant(text:toolCalls:reasoning:)`` (content may be null when it has
/// `tool_calls`, whose `arguments` is a JSON string holding an object; thinking from
/// `reasoning_content`), and `tool` ``Message/tool(result:callId:name:)`` (`tool_call_id`
/// required; the name from `name`, else from the earlier assistant call with that id). Content is
/// a string or a list of `{"type": "text", "text": ...}` parts, joined; images, audio and files
/// are refused with a 400 naming the part.
package enum ChatConversation {
    /// The conversation in `field`, which must be a non-empty array.
    package static func read(_ field: RequestField) throws(APIError) -> [Message] {
        let entries = try field.array()
        guard !entries.isEmpty else { throw field.error("must hold at least one message.") }
        var messages: [Message] = []
        for entry in entries {
            messages.append(try message(try entry.object(), earlier: messages))
        }
        return messages
    }

    private static func message(_ entry: RequestField, earlier: [Message]) throws(APIError) -> Message {
        let roleField = try entry.required("role")
        let role = try roleField.string()
        switch role {
        case "system", "developer":
            return .system(try content(entry.required("content")))
        case "user":
            return .user(try content(entry.required("content")))
        case "assistant":
            return try assistant(entry)
        case "tool":
            return try tool(entry, earlier: earlier)
        default:
            throw roleField.error("is \"\(role)\": use system, developer, user, assistant or tool.")
        }
    }

    private static func assistant(_ entry: RequestField) throws(APIError) -> Message {
        let text = try entry.member("content").map { field throws(APIError) in try content(field) } ?? ""
        var calls: [ToolCall] = []
        if let list = entry.member("tool_calls") {
            for call in try list.array() { calls.append(try toolCall(try call.object())) }
        }
        let reasoning = try (entry.member("reasoning_content") ?? entry.member("reasoning"))
            .map { field throws(APIError) in try field.string() }
        return .assistant(text: text, toolCalls: calls, reasoning: reasoning?.isEmpty == false ? reasoning : nil)
    }

    private static func toolCall(_ call: RequestField) throws(APIError) -> ToolCall {
        if let type = call.member("type") {
            let name = try type.string()
            guard name == "function" else { throw type.error("is \"\(name)\": only \"function\" tool calls exist.") }
        }
        let function = try call.required("function").object()
        let name = try function.required("name").string()
        let id = try call.member("id")?.string() ?? ToolCall.makeId()
        return ToolCall(id: id, name: name, arguments: try arguments(function.member("arguments")))
    }

    /// The arguments of a call: a JSON string holding an object (an object itself is taken too;
    /// absent or blank means none).
    static func arguments(_ field: RequestField?) throws(APIError) -> JSONObject {
        guard let field else { return [:] }
        if let object = field.value.objectValue { return object }
        let text = try field.string()
        guard text.contains(where: { !" \t\r\n".contains($0) }) else { return [:] }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: text)
        } catch {
            throw field.error("is not valid JSON (\(error)); send the arguments as a JSON object in a string.")
        }
        guard let object = parsed.objectValue else {
            throw field.error("must hold a JSON object, not \(RequestField(parsed, path: "").kind).")
        }
        return object
    }

    private static func tool(_ entry: RequestField, earlier: [Message]) throws(APIError) -> Message {
        let idField = try entry.required("tool_call_id")
        let id = try idField.string()
        let result = try content(entry.required("content"))
        if let name = try entry.member("name")?.string() {
            return .tool(result: result, callId: id, name: name)
        }
        for message in earlier.reversed() {
            if let call = message.toolCalls.first(where: { $0.id == id }) {
                return .tool(result: result, callId: id, name: call.name)
            }
        }
        throw idField.error("is \"\(id)\", which no earlier assistant tool call has; send the tool's `name` or the call.")
    }

    /// A message's text: a string, or a list of text parts joined.
    private static func content(_ field: RequestField) throws(APIError) -> String {
        try field.contentText(textTypes: ["text"], refused: [
            "image_url": RequestField.Refused.images, "image": RequestField.Refused.images,
            "input_audio": RequestField.Refused.audio, "audio": RequestField.Refused.audio, "file": RequestField.Refused.files,
        ], send: "text parts")
    }
}
