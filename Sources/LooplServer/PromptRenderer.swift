import Loopl

/// Renders a conversation into the exact prompt text a model sees, for backends that send raw prompts.
///
/// Plugging one into ``LlamaServerConfiguration/renderer`` switches ``LlamaServerModel`` to
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
    /// Extra stop strings of the template (an end-of-turn marker written as text).
    public var stop: [String]

    public init(text: String, grammar: String? = nil, grammarLazy: Bool = false, grammarTriggers: [String] = [],
                stop: [String] = []) {
        self.text = text
        self.grammar = grammar
        self.grammarLazy = grammarLazy
        self.grammarTriggers = grammarTriggers
        self.stop = stop
    }
}
