import Loopl

/// Reads a Responses `input` into Loopl ``Message``s.
///
/// `input` is a string (one user message) or a list of messages and items. A message is
/// `{role, content}`, with or without `type: "message"`: roles `user`, `assistant`, `system` and
/// `developer` (a system message); content a string or a list of `input_text` / `output_text`
/// (or `refusal`) parts, joined; images, files and audio are refused with a 400 naming the part.
/// A `function_call` item (`call_id`, `name`, `arguments` as a JSON string) is a call of an
/// assistant turn: consecutive calls join one assistant message, after the assistant text just
/// before them. A `function_call_output` item (`call_id`, `output` a string or text parts) is a
/// tool result named after the earlier call with that id. Other item types (`reasoning`, ...)
/// are skipped.
package enum ResponsesConversation {
    /// The conversation in `field`: a string, or a non-empty array of messages and items.
    /// `earlier` is the stored conversation it continues, where tool results find their calls.
    package static func read(_ field: RequestField, earlier: [Message] = []) throws(APIError) -> [Message] {
        if let text = field.value.stringValue { return [.user(text)] }
        guard field.value.arrayValue != nil else { throw field.error("must be a string or an array of input items, not \(field.kind).") }
        let entries = try field.array()
        guard !entries.isEmpty else { throw field.error("must hold at least one input item.") }
        var messages: [Message] = []
        for entry in entries {
            let item = try entry.object()
            let type = try item.member("type")?.string() ?? "message"
            switch type {
            case "message":
                messages.append(try message(item))
            case "function_call":
                append(try call(item), to: &messages)
            case "function_call_output":
                messages.append(try output(item, earlier: earlier + messages))
            default:
                continue
            }
        }
        return messages
    }

    private static func message(_ item: RequestField) throws(APIError) -> Message {
        let roleField = try item.required("role")
        let role = try roleField.string()
        let text = try content(item.required("content"))
        switch role {
        case "system", "developer": return .system(text)
        case "user": return .user(text)
        case "assistant": return .assistant(text)
        default: throw roleField.error("is \"\(role)\": use user, assistant, system or developer.")
        }
    }

    /// `call` joins the assistant turn at the end of `messages`, unless that turn is not the
    /// assistant's; then it starts one.
    private static func append(_ call: ToolCall, to messages: inout [Message]) {
        if case .assistant(let text, let calls, let reasoning)? = messages.last {
            messages[messages.count - 1] = .assistant(text: text, toolCalls: calls + [call], reasoning: reasoning)
        } else {
            messages.append(.assistant(text: "", toolCalls: [call]))
        }
    }

    private static func call(_ item: RequestField) throws(APIError) -> ToolCall {
        let id = try item.required("call_id").string()
        let nameField = try item.required("name")
        let name = try nameField.string()
        guard !name.isEmpty else { throw nameField.error("must not be empty.") }
        return ToolCall(id: id, name: name, arguments: try ChatConversation.arguments(item.member("arguments")))
    }

    private static func output(_ item: RequestField, earlier: [Message]) throws(APIError) -> Message {
        let idField = try item.required("call_id")
        let id = try idField.string()
        let result = try content(item.required("output"))
        for message in earlier.reversed() {
            if let call = message.toolCalls.first(where: { $0.id == id }) {
                return .tool(result: result, callId: id, name: call.name)
            }
        }
        throw idField.error("is \"\(id)\", which no earlier function_call has; send the function_call item before its output.")
    }

    /// A message's or an output's text: a string, or a list of text parts joined.
    private static func content(_ field: RequestField) throws(APIError) -> String {
        try field.contentText(textTypes: ["input_text", "output_text", "text"], refused: [
            "input_image": RequestField.Refused.images, "input_audio": RequestField.Refused.audio,
            "input_file": RequestField.Refused.files,
        ], send: "input_text parts")
    }
}
