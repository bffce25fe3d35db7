import CLlama
import Loopl

/// A llama.cpp context for `parallel` conversations at once, and a threadpool that lives with it.
///
/// Each sequence has a KV stream of its own of the context length (llama.cpp's cache without
/// `kv_unified`): `parallel` × the context length cells in all, every conversation can fill its
/// context, and a sequence attends to its own cells only, so that a conversation decoded beside
/// others gives the very tokens it gives alone (with the unified cache, greedy answers parted
/// from the sequential ones within a few tokens: attention then runs over every sequence's
/// cells, masked, and rounds differently).
final class LlamaContext {
    private(set) var pointer: OpaquePointer?
    private var threadpool: OpaquePointer?
    /// Each conversation's context length: the configured one, rounded up to llama.cpp's 256.
    let contextSize: Int
    /// The most prompt tokens one decode step takes.
    let promptBatch: Int
    /// The most tokens one decode step takes: a prompt batch and a token for every sequence.
    let batchSize: Int
    let abort = BatchAbort()
    /// The sliding window of the model's windowed layers (Gemma 2 and 3, gpt-oss), in tokens; 0
    /// when every layer sees the whole context. A state reused from `n` tokens on must hold the
    /// window before `n`: ``holdsWindow(_:before:)``.
    let window: Int
    /// Whether a sequence's last cells can be dropped, keeping the rest; false for recurrent and
    /// hybrid models (Mamba, Granite 4, LFM2), whose state is one summary of all its tokens.
    let dropsTail: Bool
    /// How a step's sequences are grouped into passes over the weights.
    let ubatches: UbatchPlan

    init(weights: LlamaWeights, configuration: LlamaModel.Configuration) throws {
        let parallel = configuration.resolvedParallel
        let requested = max(configuration.contextLength ?? min(weights.trainingContextLength, 4096), 16)
        let perConversation = (requested + 255) / 256 * 256
        var params = llama_context_default_params()
        params.n_ctx = UInt32(clamping: perConversation * parallel)
        params.n_seq_max = UInt32(parallel)
        params.kv_unified = false
        let promptBatch = max(configuration.batchSize, 1)
        params.n_batch = UInt32(promptBatch + parallel)
        params.n_ubatch = params.n_batch
        params.n_threads = configuration.resolvedThreads
        params.n_threads_batch = configuration.resolvedThreads
        params.no_perf = true
        params.type_k = configuration.resolvedCacheTypeK.ggmlType
        params.swa_full = configuration.swaFull
        params.flash_attn_type = configuration.flashAttention.llamaType
        params.abort_callback = { data in
            guard let data else { return false }
            return Unmanaged<BatchAbort>.fromOpaque(data).takeUnretainedValue().shouldAbort
        }
        params.abort_callback_data = Unmanaged.passUnretained(abort).toOpaque()
        guard let context = llama_init_from_model(weights.pointer, params) else {
            throw LooplError(.invalidModel, "llama.cpp could not create a context of \(parallel) × \(requested) tokens for \(weights.path): lower the context length or 'parallel', or free memory.")
        }
        // Without a threadpool of its own, ggml starts and stops threads for every decode step.
        var pool = ggml_threadpool_params_default(configuration.resolvedThreads)
        let threadpool = ggml_threadpool_new(&pool)
        if let threadpool { llama_attach_threadpool(context, threadpool, nil) }
        self.pointer = context
        self.threadpool = threadpool
        self.contextSize = Int(llama_n_ctx_seq(context))
        self.promptBatch = promptBatch
        self.batchSize = Int(params.n_batch)
        self.window = weights.slidingWindow
        let heads = max(Int(llama_model_n_head(weights.pointer)), 1)
        self.ubatches = UbatchPlan(modelBytes: Int(clamping: llama_model_size(weights.pointer)),
                                   layers: Int(llama_model_n_layer(weights.pointer)),
                                   keyValueWidth: Int(llama_model_n_embd(weights.pointer)) / heads * Int(llama_model_n_head_kv(weights.pointer)))
        self.dropsTail = !llama_model_is_recurrent(weights.pointer) && !llama_model_is_hybrid(weights.pointer)
    }

    /// Whether `sequence`'s cells hold what a token at position `length` attends to: on a
    /// windowed model, every position from `length - window + 1` on (the windowed layers'
    /// oldest cells are dropped as the sequence grows without `swaFull`, and a saved state holds
    /// only its last window), as llama.cpp's server checks with `llama_memory_seq_pos_min`.
    func holdsWindow(_ sequence: Int, before length: Int) -> Bool {
        guard let pointer, window > 0, length > 0 else { return true }
        let oldest = Int(llama_memory_seq_pos_min(llama_get_memory(pointer), llama_seq_id(sequence)))
        return oldest >= 0 && oldest <= Self.oldestNeeded(before: length, window: window)
    }

    /// The oldest position the token at `length` attends to in a window of `window` tokens.
    static func oldestNeeded(before length: Int, window: Int) -> Int {
        max(0, length - window + 1)
    }

    /// Drops `sequence`'s cells from `position` on; false when llama.cpp can drop only whole
    /// sequences (then nothing was dropped).
    @discardableResult
    func forget(_ sequence: Int, from position: Int) -> Bool {
        guard let pointer else { return true }
        return llama_memory_seq_rm(llama_get_memory(pointer), llama_seq_id(sequence), llama_pos(position), -1)
    }

    /// Makes `target`'s cells the first `count` of `source`'s: the streams are copied whole at
    /// the next decode, and `target` then drops the cells past `count`.
    func copy(_ source: Int, to target: Int, keeping count: Int) {
        guard let pointer else { return }
        let memory = llama_get_memory(pointer)
        llama_memory_seq_cp(memory, llama_seq_id(source), llama_seq_id(target), -1, -1)
        forget(target, from: count)
    }

    /// Frees the context and its threadpool; calling it again does nothing.
    func free() {
        if let pointer { llama_free(pointer) }
        if let threadpool { ggml_threadpool_free(threadpool) }
        pointer = nil
        threadpool = nil
    }

    deinit { free() }
}
