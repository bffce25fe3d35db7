import CLlama
import Foundation
import Loopl
import Synchronization

/// Embeddings of a ``LlamaModel``'s weights: a llama.cpp context of its own with embeddings on and
/// the model's pooling, made at the first request, so that the chat sequences are never touched.
///
/// One call at a time; its inputs are packed into as few decodes as the context holds (up to
/// ``maxSequences`` inputs each), each input a sequence of its own, and the memory is cleared
/// between decodes. llama.cpp runs on a thread of its own, not on the caller's task.
final class LlamaEmbedder: Sendable {
    /// The most inputs evaluated in one decode.
    static let maxSequences = 32

    private let weights: LlamaWeights
    private let configuration: LlamaModel.Configuration
    /// The context length of each input: the chat context's.
    let contextSize: Int
    private let context = Mutex<EmbeddingContext?>(nil)

    init(weights: LlamaWeights, configuration: LlamaModel.Configuration, contextSize: Int) {
        self.weights = weights
        self.configuration = configuration
        self.contextSize = contextSize
    }

    /// The pooling in use: the configuration's, else the GGUF's, else mean.
    var pooling: EmbeddingPooling {
        configuration.pooling ?? EmbeddingPooling.declared(byModel: weights.path)
    }

    func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        let tokens = try inputs.enumerated().map { index, text in
            let tokens = weights.tokenize(text, addSpecial: true, parseSpecial: false)
            guard tokens.count <= contextSize else {
                guard truncate else { throw LooplError.embeddingTooLong(input: index, count: tokens.count, context: contextSize) }
                return Array(tokens.prefix(contextSize))
            }
            return tokens
        }
        if let empty = tokens.firstIndex(where: \.isEmpty) {
            throw LooplError(.invalidRequest, "Input \(empty) is empty: an embedding needs at least one token.")
        }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.start(named: "loopl embeddings") {
                continuation.resume(with: Result { try self.run(tokens) })
            }
        }
    }

    private func run(_ inputs: [[Int32]]) throws -> Embeddings {
        try context.withLock { context in
            if context == nil { context = try EmbeddingContext(weights: weights, configuration: configuration, pooling: pooling,
                                                                 contextSize: contextSize, sequences: Self.maxSequences) }
            guard let context else { throw LooplError(.closed, "The model was closed; load it again.") }
            var vectors: [[Float]] = []
            var start = 0
            while start < inputs.count {
                var end = start
                var total = 0
                while end < inputs.count, end - start < Self.maxSequences, total + inputs[end].count <= contextSize {
                    total += inputs[end].count
                    end += 1
                }
                vectors += try context.embed(Array(inputs[start..<end]))
                start = end
            }
            return Embeddings(vectors: vectors, tokens: inputs.reduce(0) { $0 + $1.count })
        }
    }

    /// Frees the context; a later call makes a new one.
    func close() {
        context.withLock { $0 = nil }
    }
}

/// A llama.cpp context that computes pooled embeddings, `sequences` inputs at once in one cache
/// of `contextSize` cells shared by them.
private final class EmbeddingContext: @unchecked Sendable {
    // Used only under the embedder's lock.
    private let pointer: OpaquePointer
    private let dimensions: Int
    private let batch: TokenBatch

    init(weights: LlamaWeights, configuration: LlamaModel.Configuration, pooling: EmbeddingPooling,
         contextSize: Int, sequences: Int) throws {
        var params = llama_context_default_params()
        params.n_ctx = UInt32(contextSize)
        params.n_batch = UInt32(contextSize)
        params.n_ubatch = UInt32(contextSize)
        params.n_seq_max = UInt32(sequences)
        params.kv_unified = true
        params.embeddings = true
        params.pooling_type = switch pooling {
        case .mean: LLAMA_POOLING_TYPE_MEAN
        case .cls: LLAMA_POOLING_TYPE_CLS
        case .last: LLAMA_POOLING_TYPE_LAST
        }
        params.n_threads = configuration.resolvedThreads
        params.n_threads_batch = configuration.resolvedThreads
        params.no_perf = true
        guard let pointer = llama_init_from_model(weights.pointer, params) else {
            throw LooplError(.invalidModel, "llama.cpp could not create an embeddings context of \(contextSize) tokens for \(weights.path): lower the context length, or free memory.")
        }
        self.pointer = pointer
        dimensions = Int(llama_model_n_embd(weights.pointer))
        batch = TokenBatch(capacity: contextSize)
    }

    deinit { llama_free(pointer) }

    /// The normalised vectors of `inputs`, which fit in the context together.
    func embed(_ inputs: [[Int32]]) throws -> [[Float]] {
        llama_memory_clear(llama_get_memory(pointer), true)
        batch.clear()
        for (sequence, tokens) in inputs.enumerated() {
            for (position, token) in tokens.enumerated() {
                batch.add(token, at: position, of: Int32(sequence), logits: true)
            }
        }
        let status = batch.decode(in: pointer)
        guard status == .ok else {
            throw LooplError(.generationFailed, "llama.cpp \(status.reason) while computing embeddings.")
        }
        return try inputs.indices.map { sequence in
            guard let vector = llama_get_embeddings_seq(pointer, llama_seq_id(sequence)) else {
                throw LooplError(.generationFailed, "llama.cpp gave no embedding for input \(sequence).")
            }
            return Embeddings.normalised(Array(UnsafeBufferPointer(start: vector, count: dimensions)))
        }
    }
}
