import CLlama
import Loopl

/// A GGUF model run inside this process by llama.cpp: the `llama` backend.
///
/// Its tool-call style is `.text`: it streams the model's raw text and the caller lifts the calls.
/// Requests are served in order; the KV cache keeps the longest common prefix between them.
public final class LlamaModel: Model {
    /// The weights, which other ``LlamaModel``s may share.
    public let weights: LlamaWeights
    public let toolCallStyle: ToolCallStyle
    private let session: LlamaSession
    private let prompt: ChatPrompt

    /// Loads the model at `path`.
    public convenience init(path: String, configuration: LlamaConfiguration = LlamaConfiguration(),
                            progress: (@Sendable (Double) -> Void)? = nil) throws {
        try self.init(weights: LlamaWeights(path: path, gpuLayers: Int32(configuration.gpuLayers), progress: progress),
                      configuration: configuration)
    }

    /// A model with its own context over weights that are already loaded.
    public init(weights: LlamaWeights, configuration: LlamaConfiguration = LlamaConfiguration()) throws {
        self.weights = weights
        self.session = try LlamaSession(weights: weights, configuration: configuration)
        let text = { (key: String) in
            weights.metadata(key).flatMap(Int32.init).map { String(decoding: weights.piece($0), as: UTF8.self) } ?? ""
        }
        self.prompt = try ChatPrompt(templateSource: weights.chatTemplate, bosText: text("tokenizer.ggml.bos_token_id"),
                                     eosText: text("tokenizer.ggml.eos_token_id"), addsBOS: weights.addsBOS)
        self.toolCallStyle = .text(prompt.toolCallFormat)
    }

    public var contextSize: Int { get async throws { session.contextSize } }

    /// The exact text the model sees for this conversation.
    public func renderPrompt(messages: [Message], tools: [ToolSpec], options: GenerationOptions = GenerationOptions()) throws -> String {
        try prompt.render(messages: messages, tools: options.toolChoice == .none ? [] : tools)
    }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>
    {
        .generating { continuation in
            let offered = options.toolChoice == .none ? [] : tools
            let (tokens, text) = try self.promptTokens(messages: messages, tools: offered, options: options)
            let grammar = try self.prompt.grammar(tools: offered, options: options, promptText: text)
            try await self.session.generate(prompt: tokens, options: options, grammar: grammar, into: continuation)
        }
    }

    /// The prompt's tokens and text; with `truncateHistory`, the oldest turns after the system
    /// prompt are dropped until the prompt and `maxTokens` fit.
    private func promptTokens(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> ([Int32], String) {
        var kept = messages
        while true {
            let text = try prompt.text(messages: kept, tools: tools)
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
