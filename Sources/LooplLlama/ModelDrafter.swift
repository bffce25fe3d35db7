import CLlama
import Foundation
import Loopl

/// Drafts from a smaller model with the same vocabulary (`speculative.type` `"draft"`).
///
/// Its context keeps a sequence for each of the model's: before a draft, the sequence catches up
/// with the tokens the model holds (keeping what they share, so a step evaluates only what was
/// accepted since the last), and then drafts greedily, one token a decode step for all the
/// sequences together, while its top token is at least ``confidence`` likely. A draft that fails
/// costs the verify step its tokens, so an unsure draft model stops early.
final class ModelDrafter {
    /// The least probability of the draft model's top token for the draft to go on.
    static let confidence: Float = 0.75

    private let weights: LlamaWeights
    private let context: LlamaContext
    private let batch: TokenBatch
    /// The tokens that each sequence's cells hold.
    private var held: [[llama_token]]
    /// The draft model's vocabulary size, and the first token id the verifying model does not have.
    private let vocabularySize: Int
    private let vocabularyEnd: llama_token
    /// The tokens its decodes evaluated, since it was made.
    private(set) var evaluated = 0

    /// What one sequence asks: a draft after `history` (whose last token is evaluated next), at
    /// most `limit` tokens.
    struct Request {
        let sequence: Int
        let history: [llama_token]
        let limit: Int
    }

    init(weights: LlamaWeights, context: LlamaContext, sequences: Int, vocabularyEnd: Int) {
        self.weights = weights
        self.context = context
        batch = TokenBatch(capacity: context.batchSize)
        held = Array(repeating: [], count: sequences)
        vocabularySize = Int(llama_vocab_n_tokens(weights.vocab))
        self.vocabularyEnd = llama_token(clamping: vocabularyEnd)
    }

    /// Loads the draft model of `configuration` and checks that it shares the vocabulary of
    /// `weights`; a context of the same shape holds its sequences.
    static func load(for weights: LlamaWeights, configuration: LlamaModel.Configuration) throws -> ModelDrafter? {
        guard configuration.speculative.kind == .draft, let path = configuration.speculative.draftModel else { return nil }
        let draft: LlamaWeights
        do { draft = try LlamaWeights(path: path, gpuLayers: configuration.gpuLayers) } catch let error as LooplError {
            throw LooplError(error.code, "The draft model (speculative.draftModel): \(error.message)")
        }
        if let mismatch = Vocabulary(weights).mismatch(Vocabulary(draft)) {
            throw LooplError(.invalidConfiguration, "The draft model \(path) cannot draft for \(weights.path): \(mismatch). Use a draft model of the same family.")
        }
        var shape = configuration
        shape.model = path
        shape.speculative = .none
        shape.cacheTypeK = nil
        let context = try LlamaContext(weights: draft, configuration: shape)
        return ModelDrafter(weights: draft, context: context, sequences: configuration.resolvedParallel,
                            vocabularyEnd: Int(llama_vocab_n_tokens(weights.vocab)))
    }

    /// The drafts of `requests`, in their order; a request the draft model could not serve (its
    /// decode failed, or the `serving` requests were all cancelled) gets none.
    func drafts(_ requests: [Request], serving: [LlamaRequest]) -> [[llama_token]] {
        var drafts = Array(repeating: [llama_token](), count: requests.count)
        guard let pointer = context.pointer, !requests.isEmpty else { return drafts }
        context.abort.watch(serving)
        var next = catchUp(requests, in: pointer)
        while true {
            for (index, token) in next { drafts[index].append(token) }
            let going = next.filter { index, token in drafts[index].count < requests[index].limit && !weights.isEndOfGeneration(token) }
                .keys.sorted()
            guard !going.isEmpty else { return drafts }
            batch.clear()
            var outputs: [(Int, Int32)] = []
            for index in going {
                let sequence = requests[index].sequence
                outputs.append((index, batch.add(drafts[index][drafts[index].count - 1], at: held[sequence].count, of: Int32(sequence), logits: true)))
            }
            evaluated += batch.count
            guard batch.decode(in: pointer) == .ok else {
                for index in going { forgetAll(requests[index].sequence) }
                return drafts
            }
            next = [:]
            for (index, output) in outputs {
                held[requests[index].sequence].append(drafts[index][drafts[index].count - 1])
                next[index] = confident(output, in: pointer)
            }
        }
    }

    /// Brings each request's sequence to its history, in steps of at most the batch's size;
    /// returns the first drafted token of each, by index, where the model is sure of one.
    private func catchUp(_ requests: [Request], in pointer: OpaquePointer) -> [Int: llama_token] {
        var pending: [Int: ArraySlice<llama_token>] = [:]
        for (index, request) in requests.enumerated() where !request.history.isEmpty && request.limit > 0 {
            pending[index] = unheld(request)
        }
        var first: [Int: llama_token] = [:]
        while !pending.isEmpty {
            batch.clear()
            var taken: [(Int, Int, Int32?)] = []
            for (index, tokens) in pending.sorted(by: { $0.key < $1.key }) where batch.count < batch.capacity {
                let sequence = requests[index].sequence
                let count = min(tokens.count, batch.capacity - batch.count)
                var output: Int32?
                for (offset, token) in tokens.prefix(count).enumerated() {
                    let last = count == tokens.count && offset == count - 1
                    let at = batch.add(token, at: held[sequence].count + offset, of: Int32(sequence), logits: last)
                    if last { output = at }
                }
                taken.append((index, count, output))
            }
            evaluated += batch.count
            guard batch.decode(in: pointer) == .ok else {
                for (index, _, _) in taken { forgetAll(requests[index].sequence) }
                return first
            }
            for (index, count, output) in taken {
                let tokens = pending[index] ?? []
                held[requests[index].sequence].append(contentsOf: tokens.prefix(count))
                pending[index] = tokens.dropFirst(count)
                if let output {
                    pending[index] = nil
                    first[index] = confident(output, in: pointer)
                }
            }
        }
        return first
    }

    /// The tokens of `request`'s history its sequence does not hold, after dropping the cells
    /// past what they share; the last token is always among them, for fresh logits.
    private func unheld(_ request: Request) -> ArraySlice<llama_token> {
        let sequence = request.sequence
        var keep = min(SequenceTable.commonPrefix(held[sequence], request.history), request.history.count - 1)
        if !context.forget(sequence, from: keep) {
            context.forget(sequence, from: 0)
            keep = 0
        }
        held[sequence].removeSubrange(keep...)
        return request.history[keep...]
    }

    private func forgetAll(_ sequence: Int) {
        context.forget(sequence, from: 0)
        held[sequence] = []
    }

    /// The top token at `index` of the batch just decoded when it is at least ``confidence``
    /// likely and the verifying model has it.
    private func confident(_ index: Int32, in pointer: OpaquePointer) -> llama_token? {
        guard let logits = llama_get_logits_ith(pointer, index) else { return nil }
        let top = LlamaSampler.argmax(logits, count: vocabularySize)
        let highest = logits[Int(top)]
        var sum: Float = 0
        for index in 0..<vocabularySize { sum += expf(logits[index] - highest) }
        guard top < vocabularyEnd, 1 / sum >= Self.confidence else { return nil }
        return top
    }

    /// Stops its decodes when the model closes.
    var abort: BatchAbort { context.abort }

    /// Frees the draft model's context.
    func free() { context.free() }

    // The context goes before the weights it was made from.
    deinit { context.free() }
}
