import CLlama
import Loopl
import Synchronization

/// One llama.cpp context and the tokens in its KV cache, confined to an actor so that requests
/// run one at a time and the cache stays consistent. The actor runs on a thread of its own.
actor LlamaSession {
    private let executor = ThreadExecutor(name: "loopl llama")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let weights: LlamaWeights
    private let handle: ContextHandle
    private var context: OpaquePointer? { handle.pointer }
    private let abort = AbortFlag()
    /// The tokens whose keys and values are in the cache, in order.
    private var cached: [llama_token] = []
    let contextSize: Int
    private let batchSize: Int

    init(weights: LlamaWeights, configuration: LlamaModel.Configuration) throws {
        self.weights = weights
        var params = llama_context_default_params()
        let size = configuration.contextLength ?? min(weights.trainingContextLength, 4096)
        params.n_ctx = UInt32(max(size, 16))
        params.n_batch = UInt32(max(configuration.batchSize, 1))
        params.n_ubatch = params.n_batch
        params.n_threads = configuration.resolvedThreads
        params.n_threads_batch = configuration.resolvedThreads
        params.no_perf = true
        params.abort_callback = { data in
            guard let data else { return false }
            return Unmanaged<AbortFlag>.fromOpaque(data).takeUnretainedValue().isSet
        }
        params.abort_callback_data = Unmanaged.passUnretained(abort).toOpaque()
        guard let context = llama_init_from_model(weights.pointer, params) else {
            throw LooplError(.invalidModel, "llama.cpp could not create a context of \(size) tokens for \(weights.path): lower the context length, or free memory.")
        }
        // A threadpool that lives with the context: without one, ggml starts and stops threads
        // for every decode step.
        var pool = ggml_threadpool_params_default(configuration.resolvedThreads)
        let threadpool = ggml_threadpool_new(&pool)
        if let threadpool { llama_attach_threadpool(context, threadpool, nil) }
        self.handle = ContextHandle(context, threadpool: threadpool)
        self.contextSize = Int(llama_n_ctx(context))
        self.batchSize = Int(params.n_batch)
    }

    /// Frees the context; later requests fail with `closed`.
    func close() {
        handle.free()
        cached = []
    }

    /// Generates after `prompt`, streaming events into `continuation`; `thinking` counts the
    /// thinking tokens and closes the thinking when its budget is spent.
    func generate(prompt: [llama_token], options: GenerationOptions, grammar: Grammar?, thinking: ReasoningBudget,
                  into continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation) async throws {
        guard let context else { throw LooplError(.closed, "The model was closed; load it again.") }
        let start = ContinuousClock.now
        let budget = options.maxTokens ?? (contextSize - prompt.count)
        guard !prompt.isEmpty else { throw LooplError(.invalidRequest, "The prompt is empty.") }
        guard prompt.count + max(budget, 1) <= contextSize else {
            throw LooplError(.contextOverflow, "The prompt has \(prompt.count) tokens and \(max(budget, 1)) more were asked for, but the context holds \(contextSize). Shorten the conversation, lower maxTokens, or load the model with a larger context.")
        }
        abort.isSet = false

        // Reuse the longest common prefix; evaluate at least one token to get fresh logits.
        var reused = zip(cached, prompt).prefix { $0 == $1 }.count
        if reused == prompt.count { reused -= 1 }
        forget(from: reused, in: context)
        var metrics = Metrics(promptTokens: prompt.count, cachedPromptTokens: reused, contextMax: contextSize)
        let evaluation = ContinuousClock.now
        try await withTaskCancellationHandler {
            try decode(Array(prompt[reused...]), in: context)
        } onCancel: { [abort] in abort.isSet = true }
        metrics.promptEvalMs = (ContinuousClock.now - evaluation).milliseconds

        let sampler = try LlamaSampler(options: options, weights: weights, grammar: grammar)
        var text = UTF8Assembler()
        var stops = StopStringFilter(stops: options.stop)
        var reason = Metrics.StopReason.maxTokens
        var firstToken: ContinuousClock.Instant?
        var lastReport = start
        var thinking = thinking
        var forced: [llama_token] = []
        while metrics.generatedTokens < budget {
            if Task.isCancelled { reason = .cancelled; break }
            // A spent thinking budget: the closing marker's tokens come next, instead of sampled ones.
            if forced.isEmpty, let close = thinking.closing() { forced = weights.tokenize(close, addSpecial: false) }
            let token = forced.isEmpty ? try sampler.sample(context) : try sampler.force(forced.removeFirst())
            let now = ContinuousClock.now
            if firstToken == nil {
                firstToken = now
                metrics.ttftMs = (now - start).milliseconds
            }
            if weights.isEndOfGeneration(token), !options.ignoreEndOfGeneration { reason = .endTurn; break }
            metrics.generatedTokens += 1
            let piece = text.append(weights.piece(token))
            thinking.record(piece)
            metrics.reasoningTokens = thinking.tokens
            let visible = stops.feed(piece)
            if !visible.isEmpty { continuation.yield(.text(visible)) }
            if stops.stopped { reason = .stop; break }
            if metrics.generatedTokens == budget { break }
            do {
                try await withTaskCancellationHandler {
                    try decode([token], in: context)
                } onCancel: { [abort] in abort.isSet = true }
            } catch let error as LooplError where error.code == .cancelled {
                reason = .cancelled
                break
            }
            if now - lastReport >= .milliseconds(250) {
                lastReport = now
                continuation.yield(.metrics(report(metrics, firstToken: firstToken)))
            }
        }
        if !stops.stopped {
            let rest = stops.feed(text.flush()) + stops.flush()
            if !rest.isEmpty { continuation.yield(.text(rest)) }
        }
        metrics.finished = true
        metrics.stopReason = reason
        continuation.yield(.metrics(report(metrics, firstToken: firstToken)))
    }

    private func report(_ metrics: Metrics, firstToken: ContinuousClock.Instant?) -> Metrics {
        var metrics = metrics
        metrics.contextUsed = cached.count
        if let firstToken, metrics.generatedTokens > 1 {
            let seconds = (ContinuousClock.now - firstToken).seconds
            if seconds > 0 { metrics.tokensPerSecond = Double(metrics.generatedTokens - 1) / seconds }
        }
        return metrics
    }

    /// Evaluates `tokens` after the cache, in steps of at most the batch size.
    private func decode(_ tokens: [llama_token], in context: OpaquePointer) throws {
        var offset = 0
        while offset < tokens.count {
            let end = min(offset + batchSize, tokens.count)
            var chunk = Array(tokens[offset..<end])
            let status = chunk.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
            }
            guard status == 0 else {
                forget(from: cached.count, in: context)
                if status == 2 || abort.isSet {
                    throw LooplError(.cancelled, "The generation was cancelled.")
                }
                throw LooplError(.generationFailed, "llama_decode failed with status \(status) after \(cached.count) tokens.")
            }
            cached += chunk
            offset = end
        }
    }

    /// Drops the cache from position `index` on.
    private func forget(from index: Int, in context: OpaquePointer) {
        llama_memory_seq_rm(llama_get_memory(context), 0, llama_pos(index), -1)
        if index < cached.count { cached.removeSubrange(index...) }
    }
}

/// Owns a llama.cpp context and its threadpool, and frees them once.
private final class ContextHandle {
    private(set) var pointer: OpaquePointer?
    private var threadpool: OpaquePointer?
    init(_ pointer: OpaquePointer, threadpool: OpaquePointer?) {
        self.pointer = pointer
        self.threadpool = threadpool
    }
    func free() {
        if let pointer { llama_free(pointer) }
        if let threadpool { ggml_threadpool_free(threadpool) }
        pointer = nil
        threadpool = nil
    }
    deinit { free() }
}

/// A flag that llama.cpp's abort callback reads from its own threads.
final class AbortFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool {
        get { flag.load(ordering: .relaxed) }
        set { flag.store(newValue, ordering: .relaxed) }
    }
}

