import Loopl

extension ChatRequest {
    /// `temperature`, `top_p`, `top_k`, `min_p`, `repeat_penalty`, `seed`, and llama-server's
    /// `ignore_eos` (write all `max_tokens`, as benchmarks want).
    static func readSampling(_ body: RequestField, into options: inout GenerationOptions) throws(APIError) {
        if let field = body.member("temperature") { options.temperature = try field.number(in: 0...2) }
        if let field = body.member("top_p") { options.topP = try field.number(in: 0...1) }
        if let field = body.member("top_k") { options.topK = try field.integer(atLeast: 0) }
        if let field = body.member("min_p") { options.minP = try field.number(in: 0...1) }
        if let field = body.member("repeat_penalty") {
            let penalty = try field.number(in: 0...Double.greatestFiniteMagnitude)
            guard penalty > 0 else { throw field.error("must be greater than 0; 1 turns the penalty off.") }
            options.repeatPenalty = penalty
        }
        if let field = body.member("seed") { options.seed = seed(try field.integer()) }
        if let field = body.member("ignore_eos") { options.backend.ignoreEndOfGeneration = try field.bool() }
    }

    /// A seed as the sampler takes it: -1 (llama.cpp's "random") is none; any other integer keeps
    /// its low 32 bits, so that distinct small seeds stay distinct and every seed is reproducible.
    static func seed(_ value: Int) -> UInt32? {
        value == -1 ? nil : UInt32(truncatingIfNeeded: value)
    }

    /// `max_tokens`, `max_completion_tokens` (which wins) and `stop`.
    static func readLimits(_ body: RequestField, into options: inout GenerationOptions) throws(APIError) {
        if let field = body.member("max_tokens") { options.maxTokens = try field.integer(atLeast: 1) }
        if let field = body.member("max_completion_tokens") { options.maxTokens = try field.integer(atLeast: 1) }
        guard let stop = body.member("stop") else { return }
        if let single = stop.value.stringValue {
            options.stop = single.isEmpty ? [] : [single]
            return
        }
        guard stop.value.arrayValue != nil else { throw stop.error("must be a string or an array of strings, not \(stop.kind).") }
        let entries = try stop.array()
        guard entries.count <= maxStopStrings else {
            throw stop.error("has \(entries.count) strings; send at most \(maxStopStrings).")
        }
        var strings: [String] = []
        for entry in entries {
            let string = try entry.string()
            if !string.isEmpty { strings.append(string) }
        }
        options.stop = strings
    }

    /// `tool_choice`: "none", "auto", "required", or `{"type": "function", "function": {"name"}}`
    /// naming one of `tools` (with `flat`, the Responses form `{"type": "function", "name"}`).
    /// Absent means auto.
    static func toolChoice(_ field: RequestField?, tools: [ToolSpec], flat: Bool = false) throws(APIError) -> ToolChoice {
        guard let field else { return .auto }
        if let word = field.value.stringValue {
            switch word {
            case "none": return .none
            case "auto": return .auto
            case "required":
                guard !tools.isEmpty else { throw field.error("is \"required\", but the request has no `tools`.") }
                return .required
            default:
                let named = flat ? "{\"type\": \"function\", \"name\": ...}" : "{\"type\": \"function\", \"function\": {\"name\": ...}}"
                throw field.error("is \"\(word)\": use \"none\", \"auto\", \"required\" or \(named).")
            }
        }
        guard field.value.objectValue != nil else { throw field.error("must be a string or an object, not \(field.kind).") }
        if let type = field.member("type"), try type.string() != "function" {
            throw type.error("must be \"function\".")
        }
        let nameField = flat ? try field.required("name") : try field.required("function").object().required("name")
        let name = try nameField.string()
        guard tools.contains(where: { $0.name == name }) else {
            let names = tools.isEmpty ? "the request has no `tools`" : "the tools are " + tools.map(\.name).joined(separator: ", ")
            throw nameField.error("is \"\(name)\", which is not among the request's tools; \(names).")
        }
        return .tool(name)
    }

    /// `response_format`: `{"type": "text"}`, `{"type": "json_object"}` (with llama-server's
    /// optional `schema`), or `{"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`
    /// (with `flat`, the Responses `text.format` form `{"type": "json_schema", "name", "schema", "strict"}`).
    static func responseFormat(_ field: RequestField, flat: Bool = false) throws(APIError) -> ResponseFormat {
        let typeField = try field.object().required("type")
        let type = try typeField.string()
        switch type {
        case "text":
            return .text
        case "json_object":
            return try field.member("schema").map { schema throws(APIError) in .jsonSchema(try schema.object().value) } ?? .jsonObject
        case "json_schema":
            let wrapper = flat ? field : try field.required("json_schema").object()
            _ = try wrapper.member("strict")?.bool()
            _ = try wrapper.member("name")?.string()
            return .jsonSchema(try wrapper.required("schema").object().value)
        default:
            throw typeField.error("is \"\(type)\": use \"text\", \"json_object\" or \"json_schema\".")
        }
    }

    /// `chat_template_kwargs.enable_thinking` when given, else `reasoning_effort`, else the
    /// template's default.
    static func reasoning(_ body: RequestField) throws(APIError) -> ReasoningSetting {
        if let kwargs = body.member("chat_template_kwargs"),
           let enable = try kwargs.object().member("enable_thinking") {
            return try enable.bool() ? .on : .off
        }
        guard let field = body.member("reasoning_effort") else { return .auto }
        return try effort(field)
    }

    /// A reasoning effort word: `none` and `minimal` turn thinking off; `low`, `medium`, `high` set it.
    static func effort(_ field: RequestField) throws(APIError) -> ReasoningSetting {
        let effort = try field.string()
        switch effort {
        case "none", "minimal": return .off
        default:
            guard let level = ReasoningSetting.Effort(rawValue: effort) else {
                throw field.error("is \"\(effort)\": use \"none\", \"minimal\", \"low\", \"medium\" or \"high\".")
            }
            return .effort(level)
        }
    }
}
