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
    private let prompt: LlamaPrompt

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
        self.prompt = try LlamaPrompt(weights: weights)
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
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let text = try self.renderPrompt(messages: messages, tools: tools, options: options)
                    let tokens = self.weights.tokenize(self.prompt.stripLeadingBOS(text), addSpecial: true)
                    let grammar = try self.grammar(tools: tools, options: options)
                    try await self.session.generate(prompt: tokens, options: options, grammar: grammar, into: continuation)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The grammar that keeps tool calls well-formed (one call a turn, as llama-server defaults to):
    /// from the first token for `required` or a
    /// named tool, lazily from the family's opening marker for `auto`.
    /// Otherwise the response format's grammar, if any.
    func grammar(tools: [ToolSpec], options: GenerationOptions) throws -> Grammar? {
        if !tools.isEmpty, options.toolChoice != .none, case .text(let format) = toolCallStyle {
            return try ToolCallGrammar.make(tools: tools, format: format, choice: options.toolChoice, parallel: false)
        }
        return try options.responseFormat.grammar()
    }

    public func close() async {
        await session.close()
    }
}
