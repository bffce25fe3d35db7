import Loopl

/// Reads Anthropic Messages `system` and `messages` into Loopl ``Message``s.
///
/// `system` becomes the first ``Message/system(_:)``. A message's `content` is a string or a list
/// of blocks. In a `user` message, `text` blocks are joined with newlines into one
/// ``Message/user(_:)`` and each `tool_result` (`tool_use_id`, `content` a string or text blocks,
/// `is_error`) becomes a ``Message/tool(result:callId:name:)`` before it, named after the earlier
/// `tool_use` with that id; a result with `is_error: true` has ``errorMarker`` put before its text.
/// In an `assistant` message, `text` blocks are the text, `tool_use` blocks (`id`, `name`,
/// `input`) the calls and `thinking` blocks the reasoning (their `signature` is ignored);
/// `redacted_thinking` is ignored. `image`, `document` and any other block are refused with a 400
/// naming the block. Block keys other than those (`cache_control`, `citations`) are ignored.
package enum MessagesConversation {
    /// What a failed tool's result starts with, so that the model can tell it from a success.
    package static let errorMarker = "Error: "

    /// The conversation in `field`, a non-empty array, after the system prompt `system`.
    package static func read(_ field: RequestField, system: String?) throws(APIError) -> [Message] {
        let entries = try field.array()
        guard !entries.isEmpty else { throw field.error("must hold at least one message.") }
        var messages: [Message] = []
        if let system, !system.isEmpty { messages.append(.system(system)) }
        for entry in entries {
            let roleField = try entry.object().required("role")
            let content = try entry.required("content")
            switch try roleField.string() {
            case "user": messages += try user(content, earlier: messages)
            case "assistant": messages.append(try assistant(content))
            case let role: throw roleField.error("is \"\(role)\": use user or assistant; the system prompt goes in `system`.")
            }
        }
        return messages
    }

    /// A string, or text blocks joined with newlines (as `system` and tool results hold).
    package static func text(_ field: RequestField) throws(APIError) -> String {
        if let text = field.value.stringValue { return text }
        var texts: [String] = []
        for block in try blocks(field) {
            let typeField = try block.required("type")
            switch try typeField.string() {
            case "text": texts.append(try block.required("text").string())
            case let type: throw refusal(typeField, type, allowed: "text blocks")
            }
        }
        return texts.joined(separator: "\n")
    }

    private static func user(_ content: RequestField, earlier: [Message]) throws(APIError) -> [Message] {
        if let text = content.value.stringValue { return [.user(text)] }
        var results: [Message] = []
        var texts: [String] = []
        for block in try blocks(content) {
            let typeField = try block.required("type")
            switch try typeField.string() {
            case "text": texts.append(try block.required("text").string())
            case "tool_result": results.append(try toolResult(block, earlier: earlier + results))
            case "redacted_thinking", "thinking": continue
            case let type: throw refusal(typeField, type, allowed: "text and tool_result blocks")
            }
        }
        if texts.isEmpty && !results.isEmpty { return results }
        return results + [.user(texts.joined(separator: "\n"))]
    }

    private static func assistant(_ content: RequestField) throws(APIError) -> Message {
        if let text = content.value.stringValue { return .assistant(text) }
        var texts: [String] = []
        var thoughts: [String] = []
        var calls: [ToolCall] = []
        for block in try blocks(content) {
            let typeField = try block.required("type")
            switch try typeField.string() {
            case "text": texts.append(try block.required("text").string())
            case "thinking": thoughts.append(try block.required("thinking").string())
            case "redacted_thinking": continue
            case "tool_use":
                let arguments = try block.member("input")?.object().value.objectValue ?? [:]
                calls.append(ToolCall(id: try block.required("id").string(), name: try block.required("name").string(),
                                      arguments: arguments))
            case let type: throw refusal(typeField, type, allowed: "text, thinking and tool_use blocks")
            }
        }
        let reasoning = thoughts.joined(separator: "\n")
        return .assistant(text: texts.joined(separator: "\n"), toolCalls: calls, reasoning: reasoning.isEmpty ? nil : reasoning)
    }

    private static func toolResult(_ block: RequestField, earlier: [Message]) throws(APIError) -> Message {
        let idField = try block.required("tool_use_id")
        let id = try idField.string()
        var result = try block.member("content").map { field throws(APIError) in try text(field) } ?? ""
        if try block.member("is_error")?.bool() ?? false { result = errorMarker + result }
        for message in earlier.reversed() {
            if let call = message.toolCalls.first(where: { $0.id == id }) {
                return .tool(result: result, callId: id, name: call.name)
            }
        }
        throw idField.error("is \"\(id)\", which no earlier assistant `tool_use` block has; send the call before its result.")
    }

    /// The blocks of a content list, each checked to be an object.
    private static func blocks(_ field: RequestField) throws(APIError) -> [RequestField] {
        guard field.value.arrayValue != nil else {
            throw field.error("must be a string or an array of content blocks, not \(field.kind).")
        }
        var blocks: [RequestField] = []
        for block in try field.array() { blocks.append(try block.object()) }
        return blocks
    }

    /// A 400 for a block this place does not take, naming the block's `type`.
    private static func refusal(_ typeField: RequestField, _ type: String, allowed: String) -> APIError {
        switch type {
        case "image": typeField.error("is \"image\": images are not supported; send \(allowed).")
        case "document": typeField.error("is \"document\": documents are not supported; send their text as \(allowed).")
        default: typeField.error("is \"\(type)\", which is not supported here; send \(allowed).")
        }
    }
}
