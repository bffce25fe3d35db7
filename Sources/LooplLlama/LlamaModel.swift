import CLlama
import Loopl

/// A GGUF model run inside this process by llama.cpp: the `llama` backend.
///
/// Its tool-call style is `.text`: it streams the model's raw text and the caller lifts the calls.
/// Requests are served in order; the KV cache keeps the longest common prefix between them.
public final class LlamaModel: Model {
    /// The weights and vocabulary, which other ``LlamaModel``s may share.
    public let weights: LlamaWeights
    public let toolCallStyle: ToolCallStyle
    private let session: LlamaSession
    private let prompt: ChatPrompt

    /// How it was started.
    public let configuration: Configuration

    init(configuration: Configuration, sharing shared: LlamaWeights? = nil, progress: (@Sendable (Double) -> Void)? = nil) throws {
        self.configuration = configuration
        let weights = try shared ?? LlamaWeights(path: configuration.model, gpuLayers: configuration.gpuLayers, progress: progress)
        self.weights = weights
        self.prompt = try ChatPrompt(modelFile: configuration.model, template: configuration.chatTemplate)
        self.session = try LlamaSession(weights: weights, configuration: configuration)
        self.toolCallStyle = .text(prompt.toolCallFormat)
    }

    /// Loads the model, or gives it a context of its own over `weights` that another model
    /// loaded (then `configuration.model` and `gpuLayers` are the weights' own); `progress`
    /// receives the load's progress from 0 to 1.
    ///
    /// Throws ``LooplError/Code/modelNotFound`` or ``LooplError/Code/invalidModel`` with the reason.
    public static func start(_ configuration: Configuration = Configuration(), sharing weights: LlamaWeights? = nil,
                             progress: (@Sendable (Double) -> Void)? = nil) async throws -> LlamaModel {
        var configuration = configuration
        if let weights { configuration.model = weights.path }
        return try LlamaModel(configuration: configuration, sharing: weights, progress: progress)
    }

    public var contextSize: Int { get async throws { session.contextSize } }

    /// The exact text the model sees for this conversation.
    public func renderPrompt(messages: [Message], tools: [ToolSpec], options: GenerationOptions = GenerationOptions()) throws -> String {
        try prompt.render(messages: messages, tools: prompt.offered(tools, options: options),
                          reasoning: TemplateReasoning.setting(of: options))
    }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>
    {
        .generating { continuation in
            let offered = self.prompt.offered(tools, options: options)
            let (tokens, text) = try self.promptTokens(messages: messages, tools: offered, options: options)
            let grammar = try self.prompt.grammar(tools: offered, options: options, promptText: text)
            let thinking = ReasoningBudget(limit: options.reasoningBudget, promptText: text)
            try await self.session.generate(prompt: tokens, options: options, grammar: grammar, thinking: thinking,
                                            into: continuation)
        }
    }

    /// The prompt's tokens and text; with `truncateHistory`, the oldest turns after the system
    /// prompt are dropped until the prompt and `maxTokens` fit.
    private func promptTokens(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> ([Int32], String) {
        var kept = messages
        while true {
            let text = try prompt.text(messages: kept, tools: tools, reasoning: TemplateReasoning.setting(of: options))
            let tokens = weights.tokenize(text, addSpecial: true)
            let fits = tokens.count + max(options.maxTokens ?? 1, 1) <= session.contextSize
            let first = kept.first?.role == "system" ? 1 : 0
            guard options.truncateHistory, !fits, kept.count - first > 1 else { return (tokens, text) }
            kept.remove(at: first)
            // Never start with the answer to a dropped question.
            while kept.count - first > 1, kept[first].role != "user" { kept.remove(at: first) }
        }
    }

    public func close() async {
        await session.close()
    }
}
