import Loopl

/// Renders a conversation into the exact prompt text a model sees, for backends that send raw prompts.
///
/// Given as `.custom` in ``LlamaServerModel/Configuration/rendering``, it switches ``LlamaServerModel`` to
/// llama-server's `/completion` endpoint, so the same conversation reaches the model as the same
/// tokens on every backend, and tool calls can be forced with a grammar.
public protocol PromptRenderer: Sendable {
    /// The tool-call markup the rendered prompt teaches the model; the model's style is `.text(format)`.
    var toolCallFormat: ToolCallFormat { get }

    /// The prompt and its constraints for one turn.
    func render(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> RenderedPrompt
}

/// A prompt rendered by Loopl, with the grammar that constrains the answer.
public struct RenderedPrompt: Sendable, Hashable {
    /// The prompt text; special tokens written as text are parsed as special tokens.
    public var text: String
    /// A GBNF grammar the answer must follow, or nil.
    public var grammar: String?
    /// When true the grammar applies only from the first trigger on (free text may come before).
    public var grammarLazy: Bool
    /// Words that switch a lazy grammar on.
    public var grammarTriggers: [String]
    /// Regular expressions matched against the whole output that switch a lazy grammar on.
    public var grammarTriggerPatterns: [String] = []
    /// Extra stop strings of the template (an end-of-turn marker written as text).
    public var stop: [String]
    /// The markup of the model's reasoning, for the server's reasoning budget.
    package var reasoningMarkup: ReasoningMarkup = .think

    public init(text: String, grammar: String? = nil, grammarLazy: Bool = false, grammarTriggers: [String] = [],
                stop: [String] = []) {
        self.text = text
        self.grammar = grammar
        self.grammarLazy = grammarLazy
        self.grammarTriggers = grammarTriggers
        self.stop = stop
    }
}

/// Renders with the model's own chat template through Loopl's engine (``ChatPrompt``), with Loopl's
/// grammars: the prompt the in-process backend builds, token for token.
public struct ChatPromptRenderer: PromptRenderer {
    public let prompt: ChatPrompt
    public var toolCallFormat: ToolCallFormat { prompt.toolCallFormat }

    public init(prompt: ChatPrompt) { self.prompt = prompt }

    /// The renderer for the GGUF model at `path` (its template, BOS and EOS).
    public init(modelPath path: String) throws {
        self.init(prompt: try ChatPrompt(modelFile: path))
    }

    public func render(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> RenderedPrompt {
        let offered = prompt.offered(tools, options: options)
        let text = try prompt.text(messages: messages, tools: offered, reasoning: TemplateReasoning.setting(of: options))
        let grammar = try prompt.grammar(tools: offered, options: options, promptText: text)
        var rendered = RenderedPrompt(text: text, grammar: grammar?.gbnf,
                                      grammarLazy: grammar?.lazy ?? false, grammarTriggers: grammar?.triggerTokens ?? [])
        rendered.grammarTriggerPatterns = grammar?.triggerPatterns ?? []
        rendered.reasoningMarkup = ReasoningMarkup.opened(byPrompt: text) ?? ReasoningMarkup.of(prompt.toolCallFormat)
        return rendered
    }
}
