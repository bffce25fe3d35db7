/// A parsed Jinja chat template that renders prompts exactly as Hugging Face transformers'
/// `apply_chat_template` does (jinja2's ImmutableSandboxedEnvironment with `trim_blocks`,
/// `lstrip_blocks`, loop controls, `{% generation %}`, `tojson`, `raise_exception` and `strftime_now`).
///
/// Parse once, render many times; a value is immutable and safe to share between tasks.
public struct ChatTemplate: Sendable {
    var jinja: JinjaTemplate
    /// The template text as given.
    public var source: String { jinja.source }
    /// Limits that stop a runaway render.
    public var limits: TemplateLimits {
        get { jinja.limits }
        set { jinja.limits = newValue }
    }

    /// Parses `source`; a syntax error throws a ``LooplError`` (`templateError`) naming line and column.
    public init(source: String, limits: TemplateLimits = TemplateLimits()) throws {
        do {
            jinja = try JinjaTemplate(source: source, limits: limits)
        } catch {
            throw LooplError(.templateError, error.message)
        }
    }

    /// Renders with every key of `context` as a template variable (JSON null is `none`).
    ///
    /// `now` is the instant `strftime_now` formats; nil means `LOOPL_TEMPLATE_NOW` or the clock.
    /// Errors are ``LooplError``s with code `templateError`: `raise_exception(msg)` gives `msg` unchanged,
    /// other failures name the template line.
    public func render(context: JSONObject, now: TemplateTime? = nil) throws -> String {
        do {
            return try jinja.render(context: context, now: now)
        } catch {
            throw LooplError(.templateError, error.message)
        }
    }

    /// Renders a conversation the way the backends do: `messages` (OpenAI-style dictionaries),
    /// `tools` (none when empty, as transformers passes it), `documents` (none), `add_generation_prompt`,
    /// `bos_token`, `eos_token`, then every key of `extra` (for example `enable_thinking`).
    public func render(messages: [Message], tools: [ToolSpec] = [], addGenerationPrompt: Bool = true,
                       bosToken: String = "", eosToken: String = "", extra: JSONObject = [:],
                       now: TemplateTime? = nil) throws -> String {
        try render(context: Self.context(messages: messages.map(\.templateValue), tools: tools.map(\.openAIValue),
                                         addGenerationPrompt: addGenerationPrompt, bosToken: bosToken,
                                         eosToken: eosToken, extra: extra), now: now)
    }

    /// The variables transformers gives a chat template, from already-built message and tool values.
    public static func context(messages: [JSONValue], tools: [JSONValue], addGenerationPrompt: Bool,
                               bosToken: String, eosToken: String, extra: JSONObject = [:]) -> JSONObject {
        var context: JSONObject = [
            "messages": .array(messages),
            "tools": tools.isEmpty ? .null : .array(tools),
            "documents": .null,
            "add_generation_prompt": .bool(addGenerationPrompt),
            "bos_token": .string(bosToken),
            "eos_token": .string(eosToken),
        ]
        for (key, value) in extra { context[key] = value }
        return context
    }
}

extension ChatTemplate {
    /// The model's own template: `tokenizer.chat_template`, or the variant called `name`
    /// (`tokenizer.chat_template.<name>`). Throws a `templateError` naming the templates the model has.
    public init(model metadata: GGUFMetadata, named name: String? = nil, limits: TemplateLimits = TemplateLimits()) throws {
        guard let source = name.map(metadata.chatTemplate(named:)) ?? metadata.chatTemplate else {
            let available = (metadata.chatTemplate == nil ? [] : ["default"]) + metadata.chatTemplateNames
            let which = name.map { "no chat template named '\($0)'" } ?? "no chat template (tokenizer.chat_template)"
            let hint = available.isEmpty ? "pass a template file instead" : "it has: \(available.joined(separator: ", "))"
            throw LooplError(.templateError, "The model has \(which); \(hint).")
        }
        try self.init(source: source, limits: limits)
    }
}
