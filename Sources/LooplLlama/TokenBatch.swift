import CLlama

/// A `llama_batch` allocated once and refilled for every decode step: each token with its
/// position, its one sequence and whether its logits are wanted.
final class TokenBatch {
    private var batch: llama_batch
    /// The most tokens it holds.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        batch = llama_batch_init(Int32(self.capacity), 0, 1)
    }

    deinit { llama_batch_free(batch) }

    /// The tokens added since the last ``clear()``.
    var count: Int { Int(batch.n_tokens) }

    func clear() { batch.n_tokens = 0 }

    /// Adds `token` at `position` of `sequence`; returns its index, where its logits are read.
    @discardableResult
    func add(_ token: llama_token, at position: Int, of sequence: Int32, logits: Bool) -> Int32 {
        let index = Int(batch.n_tokens)
        batch.token[index] = token
        batch.pos[index] = llama_pos(position)
        batch.n_seq_id[index] = 1
        batch.seq_id[index]?.pointee = sequence
        batch.logits[index] = logits ? 1 : 0
        batch.n_tokens += 1
        return Int32(index)
    }

    /// Evaluates the batch.
    func decode(in context: OpaquePointer) -> DecodeStatus {
        DecodeStatus(llama_decode(context, batch))
    }
}
