import Synchronization

/// Turns a conversation into the exact text a model was trained on, with the model's own chat
/// template (ChatML when it has none), and gives the grammar that keeps its tool calls well-formed.
///
/// When tools are offered and the template cannot show them, they are described Hermes-style in
/// the system turn, past calls are written back as `<tool_call>` markup and results as
/// `<tool_response>` user turns, so tools work on any model. Every backend that renders prompts
/// itself uses this, so one conversation reaches the model as the same tokens everywhere.
public struct ChatPrompt: Sendable {
    public let template: ChatTemplate
    public let bosText: String
    public let eosText: String
    /// Whether the tokenizer adds BOS by itself (then a BOS the template writes is removed).
    public let addsBOS: Bool
    /// Whether the template renders tools and tool calls itself.
    public let supportsTools: Bool
    /// The tool-call family the model writes.
    public let toolCallFormat: ToolCallFormat
    /// Where the template reads the thinking of past turns.
    package let reasoningSlot: TemplateReasoning.Slot
    /// The whitespace the turn grammar allows inside JSON (the backend key `grammarSpacing`).
    public var grammarSpacing: GrammarSpacing = .separated

    static let chatML = """
        {% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}
        """

    /// A prompt from a template's source (nil: ChatML) and the model's BOS and EOS texts.
    public init(templateSource source: String?, bosText: String, eosText: String, addsBOS: Bool) throws {
        self.addsBOS = addsBOS
        self.bosText = bosText
        self.eosText = eosText
        template = try ChatTemplate(source: source ?? ChatPrompt.chatML)
        let probe = ToolSpec(name: "loopl_probe_tool", description: "probe")
        let rendered = try? template.render(messages: [.user("x")], tools: [probe], addGenerationPrompt: true,
                                            bosToken: bosText, eosToken: eosText)
        supportsTools = rendered?.contains("loopl_probe_tool") ?? false
        toolCallFormat = supportsTools ? source.map(ToolCallFormat.init(inferringFromTemplate:)) ?? .hermes : .hermes
        reasoningSlot = source.map(TemplateReasoning.slot(ofTemplate:)) ?? .reasoningContent
    }

    /// A prompt from a GGUF file's metadata: its template (or `template`, which replaces it), BOS
    /// and EOS texts.
    public init(model metadata: GGUFMetadata, template: String? = nil) throws {
        try self.init(templateSource: template ?? metadata.chatTemplate, bosText: metadata.bosToken ?? "",
                      eosText: metadata.eosToken ?? "", addsBOS: metadata["tokenizer.ggml.add_bos_token"] == .bool(true))
    }

    /// The prompt of the GGUF model at `path`: its template (or `template`), BOS and EOS texts.
    /// A model without a template gets ChatML, with a warning once per process and file.
    public init(modelFile path: String, template: String? = nil) throws {
        let metadata = try GGUFMetadata(contentsOf: path)
        if template == nil, metadata.chatTemplate == nil, Self.untemplated.withLock({ $0.insert(path).inserted }) {
            Warnings.emit("\(path) has no chat template; using chatml (choose one with --chat-template)")
        }
        try self.init(model: metadata, template: template)
    }

    /// The model files without a template that were warned about.
    private static let untemplated = Mutex<Set<String>>([])

    /// The tools a turn offers the model: none when `options.toolChoice` is `.none`, else `tools`.
    public func offered(_ tools: [ToolSpec], options: GenerationOptions) -> [ToolSpec] {
        options.toolChoice == .none ? [] : tools
    }

    /// The prompt text for `messages` with `tools` offered (none when empty) and thinking as
    /// `reasoning` sets it, without a BOS that the tokenizer adds by itself.
    public func text(messages: [Message], tools: [ToolSpec], reasoning: ReasoningSetting = .auto) throws -> String {
        stripLeadingBOS(try render(messages: messages, tools: tools, reasoning: reasoning))
    }

    /// The grammar for a turn: tool calls held well-formed (one or more calls a turn, exactly one
    /// when `options.parallelToolCalls` is false) from the first token for `required` or a named tool, lazily from the family's
    /// opening marker for `auto`; otherwise the response format's grammar, if any. When `promptText`
    /// ends inside an opened reasoning block, the grammar lets the model finish it before the call.
    public func grammar(tools: [ToolSpec], options: GenerationOptions, promptText: String) throws -> Grammar? {
        if !tools.isEmpty, options.toolChoice != .none {
            let reasoning: ToolCallGrammar.Reasoning = ToolCallParser.promptOpensReasoning(promptText) ? .open : .none
            return try ToolCallGrammar.make(tools: tools, format: toolCallFormat, choice: options.toolChoice,
                                            parallel: options.parallelToolCalls,
                                            reasoning: reasoning, spacing: grammarSpacing)
        }
        return try options.responseFormat.grammar(spacing: grammarSpacing)
    }

    /// The prompt for `messages` with `tools` offered (none when empty).
    ///
    /// An assistant turn with calls and no text gets content "" rather than null: many real
    /// templates (Qwen3, gpt-oss, Phi-3.5, Granite, ...) fail on null. Thinking reaches the
    /// template as `TemplateReasoning` says: the variables of `reasoning`, past thinking where
    /// the template reads it; under `.off`, a prompt that still opens thinking gets it closed.
    /// `now` is the instant `strftime_now` formats (nil: the clock).
    public func render(messages: [Message], tools: [ToolSpec], reasoning: ReasoningSetting = .auto,
                       now: TemplateTime? = nil) throws -> String {
        let plain = supportsTools || tools.isEmpty && !messages.contains(where: { !$0.toolCalls.isEmpty || $0.role == "tool" })
        let turns = plain ? messages : ChatPrompt.hermesMessages(messages, tools: tools)
        let values = turns.map { message -> JSONValue in
            guard case .object(var object) = message.templateValue, object["content"] == .null else { return message.templateValue }
            object["content"] = ""
            return .object(object)
        }
        let context = ChatTemplate.context(messages: TemplateReasoning.messages(values, for: reasoningSlot),
                                           tools: plain ? tools.map(\.openAIValue) : [], addGenerationPrompt: true,
                                           bosToken: bosText, eosToken: eosText, extra: TemplateReasoning.variables(reasoning))
        let prompt = try template.render(context: context, now: now)
        guard reasoning == .off, let opened = ReasoningMarkup.opened(byPrompt: prompt) else { return prompt }
        return prompt + opened.close
    }

    /// The conversation in plain turns: tools described in the system turn, calls as markup, results as user turns.
    static func hermesMessages(_ messages: [Message], tools: [ToolSpec]) -> [Message] {
        var out: [Message] = []
        var rest = messages[...]
        var system = ""
        if case .system(let text)? = rest.first {
            system = text
            rest = rest.dropFirst()
        }
        if !tools.isEmpty { system += (system.isEmpty ? "" : "\n\n") + toolInstructions(tools) }
        if !system.isEmpty { out.append(.system(system)) }
        for message in rest {
            switch message {
            case .assistant(let text, let calls, let reasoning) where !calls.isEmpty:
                let markup = calls.map { call -> String in
                    let body: JSONValue = ["name": .string(call.name), "arguments": .object(call.arguments)]
                    return "<tool_call>\n\(body.jsonText(style: .python))\n</tool_call>"
                }
                out.append(.assistant(text: ([text].filter { !$0.isEmpty } + markup).joined(separator: "\n"), toolCalls: [],
                                      reasoning: reasoning))
            case .tool(let result, _, _):
                out.append(.user("<tool_response>\n\(result)\n</tool_response>"))
            default:
                out.append(message)
            }
        }
        return out
    }

    /// The Hermes-style tool description added to the system prompt when the template has none.
    static func toolInstructions(_ tools: [ToolSpec]) -> String {
        let list = tools.map { $0.openAIValue.jsonText(style: .python) }.joined(separator: "\n")
        return """
            # Tools

            You may call one or more functions to assist with the user query.

            You are provided with function signatures within <tools></tools> XML tags:
            <tools>
            \(list)
            </tools>

            For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
            <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call>
            """
    }

    /// Removes a BOS text that the template wrote when the tokenizer adds BOS by itself.
    package func stripLeadingBOS(_ text: String) -> String {
        guard addsBOS, !bosText.isEmpty, text.hasPrefix(bosText) else { return text }
        return String(text.dropFirst(bosText.count))
    }
}
