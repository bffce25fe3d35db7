import Loopl

/// A `POST /api/chat` body: ``OllamaSettings``, `messages` (see ``OllamaConversation``; empty
/// starts the model and answers `done_reason: "load"`) and `tools` (`{"type": "function",
/// "function": {"name", "description", "parameters"}}`, as chat completions read them). Ollama has
/// no tool choice: the model decides. `logprobs`, `truncate`, `shift` and other fields are ignored.
package struct OllamaChatRequest: Sendable {
    package var settings: OllamaSettings
    /// The conversation; empty to only start the model.
    package var messages: [Message]
    package var tools: [ToolSpec]

    /// Reads a body's bytes.
    package init(body: [UInt8]) throws(APIError) {
        let body = try RequestField.body(try OllamaRequestBody.parse(body))
        settings = try OllamaSettings(body)
        messages = try body.member("messages").map { field throws(APIError) in try OllamaConversation.read(field) } ?? []
        tools = try ChatRequest.tools(body.member("tools"))
    }
}

/// An Ollama request body: JSON, however it was sent (Ollama's documentation posts with `curl -d`,
/// a form type); an empty one is Ollama's "missing request body".
enum OllamaRequestBody {
    static func parse(_ body: [UInt8]) throws(APIError) -> JSONValue {
        guard !body.isEmpty else { throw .invalidRequest("missing request body", param: nil) }
        return try RequestField.parse(body: body).value
    }
}
