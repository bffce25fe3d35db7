import Loopl

/// A `POST /v1/messages` (or `/v1/messages/count_tokens`) body in Anthropic's Messages dialect,
/// read into what a Loopl ``Model`` takes.
///
/// Read: `model`, `system` (a string or text blocks), `messages` (required, see
/// ``MessagesConversation``), `tools` (custom tools `{name, description, input_schema}`; server
/// tools such as `web_search_20250305`, `bash_…` or `text_editor_…` are left out and listed in
/// ``ignoredTools``), `tool_choice` (`auto`, `any`, `tool` with `name`, `none`, and
/// `disable_parallel_tool_use`), `max_tokens` (required on `/v1/messages`), `stop_sequences`
/// (up to 16), `temperature` (0...1), `top_p` (0...1), `top_k` (≥ 0), `seed` (Loopl's, as in chat
/// completions), `thinking` (`enabled` with `budget_tokens`, `disabled`, `adaptive`) and
/// `stream`. `metadata`, `service_tier`, `container`, `mcp_servers`, `cache_control` and any other
/// field are ignored. A field of the wrong type or range is a 400 naming its path.
///
/// Absent sampling fields take ``GenerationOptions``' defaults, as chat completions do.
package struct MessagesRequest: Sendable {
    /// The model the client asked for; nil when it named none.
    package var model: String?
    /// `keep_alive`: how long the model stays loaded after this request; nil: its backend's.
    package var keepAlive: KeepAlive?
    /// The conversation, the system prompt first.
    package var messages: [Message]
    /// The custom tools the model may call.
    package var tools: [ToolSpec]
    /// Sampling, limits, stop strings, tool choice and thinking.
    package var options: GenerationOptions
    /// True when the client wants server-sent events.
    package var stream: Bool
    /// False when the model may make at most one tool call (`disable_parallel_tool_use: true`).
    package var parallelToolCalls: Bool
    /// The server tools offered, which Loopl does not run, as `name (type)`.
    package var ignoredTools: [String]

    /// Reads a body's bytes; `countingTokens` makes `max_tokens` optional, as `count_tokens` has none.
    package init(body: [UInt8], countingTokens: Bool = false) throws(APIError) {
        try self.init(json: try RequestField.parse(body: body).value, countingTokens: countingTokens)
    }

    /// Reads a parsed body, which must be a JSON object.
    package init(json: JSONValue, countingTokens: Bool = false) throws(APIError) {
        guard json.objectValue != nil else {
            throw .invalidRequest("The request body must be a JSON object, not \(RequestField(json, path: "").kind).", param: nil)
        }
        let body = RequestField(json, path: "")
        model = try body.member("model")?.string()
        keepAlive = try body.keepAliveMember()
        let system = try body.member("system").map { field throws(APIError) in try MessagesConversation.text(field) }
        messages = try MessagesConversation.read(body.required("messages"), system: system)
        (tools, ignoredTools) = try Self.tools(body.member("tools"))
        stream = try body.member("stream")?.bool() ?? false
        options = GenerationOptions()
        if !countingTokens || body.member("max_tokens") != nil {
            options.maxTokens = try body.required("max_tokens").integer(atLeast: 1)
        }
        (options.toolChoice, parallelToolCalls) = try Self.toolChoice(body.member("tool_choice"), tools: tools)
        options.parallelToolCalls = parallelToolCalls
        (options.reasoning, options.reasoningBudget) = try Self.reasoning(body.member("thinking"))
        try readSampling(body)
    }

    /// The stop strings the model was given (``GenerationOptions/stop``), for `stop_sequence`.
    package var stopSequences: [String] { options.stop }

    private mutating func readSampling(_ body: RequestField) throws(APIError) {
        if let field = body.member("temperature") { options.temperature = try field.number(in: 0...1) }
        if let field = body.member("top_p") { options.topP = try field.number(in: 0...1) }
        if let field = body.member("top_k") { options.topK = try field.integer(atLeast: 0) }
        if let field = body.member("seed") { options.seed = ChatRequest.seed(try field.integer()) }
        guard let stop = body.member("stop_sequences") else { return }
        let entries = try stop.array()
        guard entries.count <= ChatRequest.maxStopStrings else {
            throw stop.error("has \(entries.count) strings; send at most \(ChatRequest.maxStopStrings).")
        }
        var strings: [String] = []
        for entry in entries {
            let string = try entry.string()
            if !string.isEmpty { strings.append(string) }
        }
        options.stop = strings
    }

    /// Custom tools (no `type`, or `custom`), and the names of the server tools left out.
    private static func tools(_ field: RequestField?) throws(APIError) -> ([ToolSpec], [String]) {
        guard let field else { return ([], []) }
        var tools: [ToolSpec] = []
        var ignored: [String] = []
        for entry in try field.array() {
            _ = try entry.object()
            let nameField = try entry.required("name")
            let name = try nameField.string()
            if let type = try entry.member("type")?.string(), type != "custom" {
                ignored.append("\(name) (\(type))")
                continue
            }
            guard !name.isEmpty else { throw nameField.error("must not be empty.") }
            let description = try entry.member("description")?.string() ?? ""
            let schema = try entry.required("input_schema").object().value
            tools.append(ToolSpec(name: name, description: description, parameters: schema))
        }
        return (tools, ignored)
    }

    /// `tool_choice` and its `disable_parallel_tool_use`; absent means auto with parallel calls.
    private static func toolChoice(_ field: RequestField?, tools: [ToolSpec]) throws(APIError) -> (ToolChoice, Bool) {
        guard let field else { return (.auto, true) }
        let typeField = try field.object().required("type")
        let parallel = !(try field.member("disable_parallel_tool_use")?.bool() ?? false)
        switch try typeField.string() {
        case "auto": return (.auto, parallel)
        case "none": return (.none, parallel)
        case "any":
            guard !tools.isEmpty else { throw typeField.error("is \"any\", but the request has no custom `tools`.") }
            return (.required, parallel)
        case "tool":
            let nameField = try field.required("name")
            let name = try nameField.string()
            guard tools.contains(where: { $0.name == name }) else {
                let names = tools.isEmpty ? "the request has no custom `tools`" : "the tools are " + tools.map(\.name).joined(separator: ", ")
                throw nameField.error("is \"\(name)\", which is not among the request's tools; \(names).")
            }
            return (.tool(name), parallel)
        case let type:
            throw typeField.error("is \"\(type)\": use \"auto\", \"any\", \"tool\" or \"none\".")
        }
    }

    /// `thinking`: `enabled` turns it on with `budget_tokens` as the budget, `disabled` off,
    /// `adaptive` leaves it to the template; absent is the template's default.
    private static func reasoning(_ field: RequestField?) throws(APIError) -> (ReasoningSetting, Int?) {
        guard let field else { return (.auto, nil) }
        let typeField = try field.object().required("type")
        switch try typeField.string() {
        case "enabled": return (.on, try field.required("budget_tokens").integer(atLeast: 1))
        case "disabled": return (.off, nil)
        case "adaptive": return (.auto, nil)
        case let type: throw typeField.error("is \"\(type)\": use \"enabled\", \"disabled\" or \"adaptive\".")
        }
    }
}
