import Loopl

/// A `POST /v1/responses` body, read into what a Loopl ``Model`` takes.
///
/// Read: `model`, `input` (required, see ``ResponsesConversation``), `instructions` (a system message
/// first, not carried on by `previous_response_id`), `tools` (flat function tools
/// `{type: "function", name, description, parameters, strict}`; other tool types are accepted,
/// ignored and listed in ``ignoredToolTypes``), `tool_choice`, `parallel_tool_calls`,
/// `max_output_tokens`, `temperature` (0...2), `top_p` (0...1), `reasoning.effort`, `text.format`
/// (`text`, `json_object`, `json_schema`), `stream`, `store` (default true),
/// `previous_response_id` and `metadata`. Other fields are ignored. A field of the wrong type or
/// range is a 400 naming its path.
package struct ResponsesRequest: Sendable {
    /// The model the client asked for; nil when it named none.
    package var model: String?
    /// `keep_alive`: how long the model stays loaded after this request; nil: its backend's.
    package var keepAlive: KeepAlive?
    /// The `instructions`, sent as a system message before the conversation.
    package var instructions: String?
    /// The turns of `input`, in order; read by ``conversation(after:)`` when the request
    /// continues a stored response (its tool results may answer the stored calls), else empty.
    package var input: [Message]
    /// The `input` field itself.
    package let inputField: RequestField
    /// The function tools the model may call.
    package var tools: [ToolSpec]
    /// The types of the tools that were given but cannot be served (`web_search`, ...), in order, once each.
    package var ignoredToolTypes: [String]
    /// Sampling, limits, tool choice, response format and thinking.
    package var options: GenerationOptions
    /// True when the client wants server-sent events.
    package var stream: Bool
    /// False when the finished response must not be kept (`store: false`).
    package var store: Bool
    /// The stored response this one continues.
    package var previousResponseId: String?
    /// False when the model may make at most one tool call.
    package var parallelToolCalls: Bool
    /// The request's settings as the response object repeats them: `instructions`, `tools`,
    /// `tool_choice`, `temperature`, `top_p`, `max_output_tokens`, `text`, `reasoning`, `metadata`...
    package var echo: JSONObject

    /// Reads a body's bytes: a 400 `invalid_json` when they are not UTF-8 JSON.
    package init(body: [UInt8]) throws(APIError) {
        try self.init(json: try RequestField.parse(body: body).value)
    }

    /// Reads a parsed body, which must be a JSON object.
    package init(json: JSONValue) throws(APIError) {
        let body = try RequestField.body(json)
        model = try body.member("model")?.string()
        keepAlive = try body.keepAliveMember()
        instructions = try body.member("instructions")?.string()
        inputField = try body.required("input")
        previousResponseId = try body.member("previous_response_id")?.string()
        input = previousResponseId == nil ? try ResponsesConversation.read(inputField) : []
        (tools, ignoredToolTypes) = try Self.tools(body.member("tools"))
        stream = try body.member("stream")?.bool() ?? false
        store = try body.member("store")?.bool() ?? true
        parallelToolCalls = try body.member("parallel_tool_calls")?.bool() ?? true
        options = GenerationOptions()
        if let field = body.member("temperature") { options.temperature = try field.number(in: 0...2) }
        if let field = body.member("top_p") { options.topP = try field.number(in: 0...1) }
        if let field = body.member("max_output_tokens") { options.maxTokens = try field.integer(atLeast: 1) }
        options.toolChoice = try ChatRequest.toolChoice(body.member("tool_choice"), tools: tools, flat: true)
        options.parallelToolCalls = parallelToolCalls
        let text = try body.member("text")?.object()
        if let format = text?.member("format") {
            options.responseFormat = try ChatRequest.responseFormat(format, flat: true)
        }
        let reasoning = try body.member("reasoning")?.object()
        if let effort = reasoning?.member("effort") { options.reasoning = try ChatRequest.effort(effort) }
        echo = try Self.echo(body, tools: tools, options: options)
    }

    /// The conversation to send: the instructions, then `earlier` (the stored conversation that
    /// `previous_response_id` continues), then the input.
    package func conversation(after earlier: [Message]) throws(APIError) -> (all: [Message], input: [Message]) {
        let input = previousResponseId == nil ? input : try ResponsesConversation.read(inputField, earlier: earlier)
        return ((instructions.map { [Message.system($0)] } ?? []) + earlier + input, input)
    }

    /// The function tools, and the types of the others.
    private static func tools(_ field: RequestField?) throws(APIError) -> ([ToolSpec], [String]) {
        guard let field else { return ([], []) }
        var tools: [ToolSpec] = []
        var ignored: [String] = []
        for entry in try field.array() {
            let type = try entry.object().required("type").string()
            guard type == "function" else {
                if !ignored.contains(type) { ignored.append(type) }
                continue
            }
            let nameField = try entry.required("name")
            let name = try nameField.string()
            guard !name.isEmpty else { throw nameField.error("must not be empty.") }
            _ = try entry.member("strict")?.bool()
            let description = try entry.member("description")?.string() ?? ""
            let parameters = try entry.member("parameters")?.object().value ?? ["type": "object", "properties": [:]]
            tools.append(ToolSpec(name: name, description: description, parameters: parameters))
        }
        return (tools, ignored)
    }

    /// The settings the response object repeats, as the request gave them or as they were applied.
    private static func echo(_ body: RequestField, tools: [ToolSpec], options: GenerationOptions) throws(APIError) -> JSONObject {
        let metadata = try body.member("metadata")?.object().value ?? [:]
        let toolValues: [JSONValue] = tools.map { tool in
            ["type": "function", "name": .string(tool.name), "description": .string(tool.description),
             "parameters": tool.parameters, "strict": body.value["tools"].flatMap { Self.strict(of: tool.name, in: $0) } ?? .null]
        }
        return [
            "instructions": body.member("instructions")?.value ?? .null,
            "tools": .array(toolValues),
            "tool_choice": body.member("tool_choice")?.value ?? "auto",
            "parallel_tool_calls": .bool(try body.member("parallel_tool_calls")?.bool() ?? true),
            "temperature": .double(options.temperature),
            "top_p": .double(options.topP),
            "max_output_tokens": options.maxTokens.map { .integer($0) } ?? .null,
            "previous_response_id": body.member("previous_response_id")?.value ?? .null,
            "store": .bool(try body.member("store")?.bool() ?? true),
            "text": ["format": body.member("text")?.member("format")?.value ?? ["type": "text"]],
            "reasoning": ["effort": body.member("reasoning")?.member("effort")?.value ?? .null, "summary": .null],
            "metadata": metadata,
            "truncation": "disabled",
            "background": false,
            "user": .null,
        ]
    }

    /// The `strict` a function tool named `name` was given with.
    private static func strict(of name: String, in tools: JSONValue) -> JSONValue? {
        tools.arrayValue?.first { $0["type"]?.stringValue == "function" && $0["name"]?.stringValue == name }?["strict"]
    }
}
