import Loopl

/// A `POST /v1/chat/completions` body, read into what a Loopl ``Model`` takes.
///
/// Read: `model`, `messages` (required, see ``ChatConversation``), `tools` (function tools only),
/// `tool_choice`, `parallel_tool_calls`, `response_format` (`text`, `json_object`, `json_schema`),
/// `max_tokens` and `max_completion_tokens` (the latter wins), `temperature` (0...2), `top_p`
/// (0...1), `top_k` (≥ 0), `min_p` (0...1), `repeat_penalty` (llama.cpp's, > 0), `seed`, `stop`
/// (a string or up to 16 strings), `stream`, `stream_options.include_usage`, `reasoning_effort`
/// (`none` and `minimal` turn thinking off; `low`, `medium`, `high` set the effort) and
/// `chat_template_kwargs.enable_thinking` (wins over `reasoning_effort`). `n` must be 1. Other
/// fields are ignored. A field of the wrong type or range is a 400 naming its path.
///
/// Absent fields take ``GenerationOptions``' defaults: temperature 0.8, top_p 0.95, top_k 40,
/// min_p 0.05, repeat_penalty 1 (off), a random seed, no stop strings, tool_choice `auto`, free
/// text, the template's own thinking, and no token limit (until the model stops or the context is full).
package struct ChatRequest: Sendable {
    /// The model the client asked for; nil when it named none.
    package var model: String?
    /// `keep_alive`: how long the model stays loaded after this request; nil: its backend's.
    package var keepAlive: KeepAlive?
    /// The conversation.
    package var messages: [Message]
    /// The tools the model may call.
    package var tools: [ToolSpec]
    /// Sampling, limits, stop strings, tool choice, response format and thinking.
    package var options: GenerationOptions
    /// True when the client wants server-sent events.
    package var stream: Bool
    /// True when a streamed answer ends with a chunk that holds the usage (`stream_options.include_usage`).
    package var includeUsage: Bool
    /// False when the model may make at most one tool call (`parallel_tool_calls: false`).
    package var parallelToolCalls: Bool

    /// The most stop strings a request may give.
    package static let maxStopStrings = 16

    /// Reads a body's bytes: a 400 `invalid_json` when they are not UTF-8 JSON.
    package init(body: [UInt8]) throws(APIError) {
        try self.init(json: try RequestField.parse(body: body).value)
    }

    /// Reads a parsed body, which must be a JSON object.
    package init(json: JSONValue) throws(APIError) {
        let body = try RequestField.body(json)
        model = try body.member("model")?.string()
        keepAlive = try body.keepAliveMember()
        messages = try ChatConversation.read(body.required("messages"))
        if let n = body.member("n") {
            let count = try n.integer()
            guard count == 1 else { throw n.error("is \(count): only one choice per request is served; send n = 1 or leave it out.") }
        }
        tools = try Self.tools(body.member("tools"))
        stream = try body.member("stream")?.bool() ?? false
        includeUsage = try body.member("stream_options")?.object().member("include_usage")?.bool() ?? false
        parallelToolCalls = try body.member("parallel_tool_calls")?.bool() ?? true
        options = GenerationOptions()
        try Self.readSampling(body, into: &options)
        try Self.readLimits(body, into: &options)
        options.toolChoice = try Self.toolChoice(body.member("tool_choice"), tools: tools)
        options.parallelToolCalls = parallelToolCalls
        if let format = body.member("response_format") { options.responseFormat = try Self.responseFormat(format) }
        options.reasoning = try Self.reasoning(body)
    }

    /// `tools`: function tools `{"type": "function", "function": {"name", "description", "parameters"}}`.
    static func tools(_ field: RequestField?) throws(APIError) -> [ToolSpec] {
        guard let field else { return [] }
        var tools: [ToolSpec] = []
        for entry in try field.array() {
            _ = try entry.object()
            if let type = entry.member("type") {
                let name = try type.string()
                guard name == "function" else {
                    throw type.error("is \"\(name)\": only \"function\" tools are supported.")
                }
            }
            let function = try entry.required("function").object()
            let nameField = try function.required("name")
            let name = try nameField.string()
            guard !name.isEmpty else { throw nameField.error("must not be empty.") }
            let description = try function.member("description")?.string() ?? ""
            let parameters = try function.member("parameters")?.object().value ?? ["type": "object", "properties": [:]]
            tools.append(ToolSpec(name: name, description: description, parameters: parameters))
        }
        return tools
    }
}
