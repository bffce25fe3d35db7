import Loopl

/// The JSON bodies of generation requests.
enum ServerRequest {
    /// A streamed `/v1/chat/completions` request. `llamaCpp` adds llama-server's own fields
    /// (exact token limits, per-token timings, all sampler settings).
    static func chat(messages: [Message], tools: [ToolSpec], options: GenerationOptions, llamaCpp: Bool) -> JSONValue {
        var body: JSONObject = [
            "messages": .array(messages.map(wireMessage)),
            "stream": true,
            "stream_options": ["include_usage": true],
        ]
        switch options.toolChoice {
        case .none:
            break
        case .auto where !tools.isEmpty:
            body["tools"] = .array(tools.map(\.openAIValue))
            body["tool_choice"] = "auto"
        case .required where !tools.isEmpty:
            body["tools"] = .array(tools.map(\.openAIValue))
            body["tool_choice"] = "required"
        case .tool(let name):
            // llama-server reads tool_choice only as a string: offer just that tool, and require a call.
            let named = tools.filter { $0.name == name }
            if !named.isEmpty {
                body["tools"] = .array(named.map(\.openAIValue))
                body["tool_choice"] = "required"
            }
        default:
            break
        }
        addSampling(options, to: &body, llamaCpp: llamaCpp)
        addReasoning(options, to: &body, llamaCpp: llamaCpp)
        if llamaCpp { body["timings_per_token"] = true }
        return .object(body)
    }

    /// The thinking switch as the template's `enable_thinking` (llama-server, vLLM), an effort as
    /// OpenAI's `reasoning_effort`, and llama-server's budget of thinking tokens.
    private static func addReasoning(_ options: GenerationOptions, to body: inout JSONObject, llamaCpp: Bool) {
        let setting = TemplateReasoning.setting(of: options)
        if setting != .auto { body["chat_template_kwargs"] = ["enable_thinking": .bool(setting != .off)] }
        if case .effort(let effort) = setting { body["reasoning_effort"] = .string(effort.rawValue) }
        if llamaCpp, let budget = options.reasoningBudget { body["reasoning_budget_tokens"] = .integer(budget) }
    }

    /// A streamed `/completion` request on a prompt Loopl rendered; `openedReasoning` when the
    /// prompt ends by opening the thinking.
    static func completion(_ prompt: RenderedPrompt, openedReasoning: Bool, options: GenerationOptions) -> JSONValue {
        var body: JSONObject = ["prompt": .string(prompt.text), "stream": true, "cache_prompt": true,
                                "timings_per_token": true]
        addSampling(options, to: &body, llamaCpp: true)
        body["n_predict"] = .integer(options.maxTokens ?? -1)
        body["max_tokens"] = nil
        let stops = options.stop + prompt.stop
        body["stop"] = stops.isEmpty ? nil : .array(stops.map(JSONValue.string))
        if let budget = options.reasoningBudget {
            // llama-server's budget sampler: it counts from the start tag (fed the generation
            // prompt when the prompt opened the thinking) and forces the first end tag when spent.
            body["reasoning_budget_tokens"] = .integer(budget)
            body["reasoning_budget_start_tag"] = .string(prompt.reasoningMarkup.open)
            body["reasoning_budget_end_tags"] = [.string(prompt.reasoningMarkup.close)]
            body["reasoning_budget_message"] = ""
            if openedReasoning { body["generation_prompt"] = .string(prompt.reasoningMarkup.open) }
        }
        if let grammar = prompt.grammar {
            body["grammar"] = .string(grammar)
            if prompt.grammarLazy {
                body["grammar_lazy"] = true
                // llama.cpp's trigger types: 1 a word, 3 a pattern matched against the whole output.
                body["grammar_triggers"] = .array(prompt.grammarTriggers.map { ["type": 1, "value": .string($0)] }
                                                  + prompt.grammarTriggerPatterns.map { ["type": 3, "value": .string($0)] })
            }
        }
        return .object(body)
    }

    private static func addSampling(_ options: GenerationOptions, to body: inout JSONObject, llamaCpp: Bool) {
        if let maxTokens = options.maxTokens { body["max_tokens"] = .integer(maxTokens) }
        body["temperature"] = .double(options.temperature)
        body["top_p"] = .double(options.topP)
        if let seed = options.seed { body["seed"] = .integer(Int(seed)) }
        if !options.stop.isEmpty { body["stop"] = .array(options.stop.map(JSONValue.string)) }
        guard llamaCpp else { return }
        body["top_k"] = .integer(options.topK)
        body["min_p"] = .double(options.minP)
        body["repeat_penalty"] = .double(options.repeatPenalty)
        if options.backend.ignoreEndOfGeneration { body["ignore_eos"] = true }
        if options.temperature <= 0, options.repeatPenalty == 1 {
            // Greedy: the shortest chain that picks the most likely token (top-k 1, then a trivial draw).
            body["samplers"] = ["top_k"]
            body["top_k"] = 1
        }
    }

    /// `body` held to a child's `slot` (`id_slot`), whose cache of the conversation's prompt it reuses.
    static func pinned(_ body: JSONValue, slot: Int?) -> JSONValue {
        guard let slot, case .object(var object) = body else { return body }
        object["id_slot"] = .integer(slot)
        object["cache_prompt"] = true
        return .object(object)
    }

    /// The OpenAI wire form of a message: tool-call arguments as a JSON string.
    static func wireMessage(_ message: Message) -> JSONValue {
        guard case .object(var object) = message.templateValue else { return message.templateValue }
        if !message.toolCalls.isEmpty {
            object["tool_calls"] = .array(message.toolCalls.map { call in
                ["id": .string(call.id), "type": "function",
                 "function": ["name": .string(call.name), "arguments": .string(JSONValue.object(call.arguments).jsonText())]]
            })
        }
        return .object(object)
    }
}
