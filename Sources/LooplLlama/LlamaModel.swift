import CLlama
import Foundation
import Loopl

/// A GGUF model run inside this process by llama.cpp: the `llama` backend.
///
/// The model's text is lifted as it streams (``LiftingContinuation``, in the format its chat
/// template writes calls in, ``toolCallFormat``), so its events carry no markup.
///
/// Up to `parallel` requests (default 4) are served at once by one decode loop, which evaluates
/// the next token of all of them in one llama.cpp batch, and a new request's prompt in chunks
/// between those steps; later requests wait in arrival order, at most `maxQueue` of them, and one
/// more fails with ``LooplError/Code/busy``. Each request runs in a KV sequence of its own: a
/// conversation's (``GenerationOptions/conversation``) keeps its cells between requests, so the
/// next one evaluates only what is new after the longest common prefix; an idle conversation's
/// cells are given up, least recently used first, only when a request needs a sequence.
/// One-off requests (no conversation) reuse the free sequence that shares most of their prompt.
///
/// ``contextSize`` is each conversation's context length. Each sequence has a KV stream of its own
/// of that length (`parallel` × `contextLength` cells in all, allocated at load), not one cache
/// shared by all (llama.cpp's `kv_unified`): every conversation can fill its context at once, and
/// a greedy conversation batched with others gives the very tokens it gives alone, which with
/// the shared cache it did not (its attention runs over every sequence's cells and rounds
/// differently). ``observeSteps(_:)`` reports each decode step, for latency benchmarks.
public final class LlamaModel: EmbeddingModel {
    /// The weights and vocabulary, which other ``LlamaModel``s may share.
    public let weights: LlamaWeights
    /// The family of tool-call markup its chat template writes, which its text is lifted from.
    public var toolCallFormat: ToolCallFormat { prompt.toolCallFormat }
    let session: LlamaSession
    private let embedder: LlamaEmbedder
    private let queue: RequestQueue
    private let prompt: ChatPrompt

    /// How it was started.
    public let configuration: Configuration

    init(configuration: Configuration, sharing shared: LlamaWeights? = nil, progress: (@Sendable (Double) -> Void)? = nil) throws {
        self.configuration = configuration
        let weights = try shared ?? LlamaWeights(path: configuration.model, gpuLayers: configuration.gpuLayers, progress: progress)
        self.weights = weights
        var prompt = try ChatPrompt(modelFile: configuration.model, template: configuration.chatTemplate)
        prompt.grammarSpacing = configuration.grammarSpacing
        self.prompt = prompt
        self.session = try LlamaSession(weights: weights, configuration: configuration)
        self.embedder = LlamaEmbedder(weights: weights, configuration: configuration, contextSize: session.contextSize)
        self.queue = RequestQueue(parallel: configuration.resolvedParallel, maxQueue: configuration.maxQueue)
        if configuration.allowSpecialTokensInContent {
            Warnings.emit(PromptSpans.switchWarning)
        }
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

    /// Each conversation's context length.
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
            try await self.queue.acquire()
            defer { self.queue.release() }
            let start = ContinuousClock.now
            let offered = self.prompt.offered(tools, options: options)
            let (tokens, text) = try self.promptTokens(messages: messages, tools: offered, options: options)
            let grammar = try self.prompt.grammar(tools: offered, options: options, promptText: text)
            let opened = ReasoningMarkup.opened(byPrompt: text)
            let events = LiftingContinuation(continuation, format: self.prompt.toolCallFormat, tools: offered, opened: opened)
            let request = try LlamaRequest(prompt: tokens, options: options, grammar: grammar,
                                           reasoningBudget: ReasoningBudget(limit: options.reasoningBudget, opened: opened),
                                           weights: self.weights, contextSize: self.session.contextSize, events: events,
                                           start: start)
            try await self.session.generate(request)
        }
    }

    /// Generates after `prompt` as it is written (special tokens in it are parsed as such, and BOS
    /// is added as the model asks), with no template, grammar or lifting.
    public func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        .generating { continuation in
            try await self.queue.acquire()
            defer { self.queue.release() }
            let start = ContinuousClock.now
            let events = LiftingContinuation(continuation, format: nil, tools: [], opened: nil)
            let request = try LlamaRequest(prompt: self.weights.tokenize(prompt, addSpecial: true), options: options, grammar: nil,
                                           reasoningBudget: ReasoningBudget(limit: nil, opened: nil), weights: self.weights,
                                           contextSize: self.session.contextSize, events: events, start: start)
            try await self.session.generate(request)
        }
    }

    /// Pooled, normalised embeddings of `inputs` (``Configuration/pooling``, else the GGUF's, else
    /// mean), from a context of their own beside the chat sequences, which they leave as they are.
    public func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        try await embedder.embed(inputs, truncate: truncate)
    }

    /// The prompt's tokens and text; with `truncateHistory`, the oldest turns after the system
    /// prompt are dropped until the prompt and `maxTokens` fit.
    func promptTokens(messages: [Message], tools: [ToolSpec], options: GenerationOptions) throws -> ([Int32], String) {
        var kept = messages
        while true {
            let render = { try self.prompt.text(messages: $0, tools: $1, reasoning: TemplateReasoning.setting(of: options)) }
            let (tokens, text): ([Int32], String)
            if configuration.allowSpecialTokensInContent {
                text = try render(kept, tools)
                tokens = weights.tokenize(text, addSpecial: true)
            } else {
                let spans = try PromptSpans(messages: kept, tools: tools, weights: weights, render: render)
                (tokens, text) = (spans.tokens(weights), spans.text)
            }
            let fits = tokens.count + max(options.maxTokens ?? 1, 1) <= session.contextSize
            let first = kept.first?.role == "system" ? 1 : 0
            guard options.backend.truncateHistory, !fits, kept.count - first > 1 else { return (tokens, text) }
            kept.remove(at: first)
            // Never start with the answer to a dropped question.
            while kept.count - first > 1, kept[first].role != "user" { kept.remove(at: first) }
        }
    }

    /// The prompt cache's warnings so far (files it skipped), the last 16.
    package var promptCacheWarnings: [String] { session.promptCache?.warnings ?? [] }

    public func close() async {
        await session.close()
        embedder.close()
    }
}
