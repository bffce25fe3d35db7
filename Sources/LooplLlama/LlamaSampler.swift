import CLlama
import Foundation
import Loopl

/// A llama.cpp sampler chain built from ``GenerationOptions``, and an optional grammar kept out of
/// the chain: a sampled token is checked against the grammar alone (as llama.cpp's own tools do,
/// for speed). When it is rejected, the highest-ranked tokens are constrained first, and the whole
/// vocabulary only when they cannot decide (see ``rescue(_:)``): on a large vocabulary the grammar's
/// pass over every token costs more than the decode step.
///
/// Used by one thread at a time: made by a request's task, then used by the decode loop alone.
final class LlamaSampler: @unchecked Sendable {
    private let chain: UnsafeMutablePointer<llama_sampler>
    private let grammar: UnsafeMutablePointer<llama_sampler>?
    private let vocabularySize: Int
    /// The whole vocabulary with its logits, filled for the chain; made on first use (greedy
    /// sampling without a grammar never needs it).
    private lazy var candidates = [llama_token_data](repeating: llama_token_data(), count: vocabularySize)
    /// The chain is greedy alone: the next token is the first with the highest logit.
    private let greedy: Bool
    /// The chain's top-k when it is the first of its samplers and the chain has no penalties: then
    /// the constrained pick depends only on the `topK` highest allowed tokens.
    private let leadingTopK: Int?

    /// How many of the highest-ranked tokens ``rescue(_:)`` constrains before the whole vocabulary
    /// (0: none, the whole vocabulary at once).
    private let rescueWidth: Int
    /// How many rejected picks the highest-ranked tokens decided.
    private(set) var rescued = 0

    init(options: GenerationOptions, weights: LlamaWeights, grammar: Grammar?, rescueWidth: Int = 256) throws {
        let vocab = weights.vocab
        self.rescueWidth = rescueWidth
        if let grammar {
            guard let sampler = LlamaSampler.makeGrammar(grammar, weights: weights) else {
                throw LooplError(.invalidRequest, "llama.cpp rejected the generated grammar (root '\(grammar.root)'); this is a bug in Loopl's grammar for these tools.")
            }
            self.grammar = sampler
        } else {
            self.grammar = nil
        }
        vocabularySize = Int(llama_vocab_n_tokens(vocab))
        greedy = options.temperature <= 0 && options.repeatPenalty == 1
        leadingTopK = options.temperature > 0 && options.repeatPenalty == 1 && options.topK > 0 ? options.topK : nil
        chain = llama_sampler_chain_init(llama_sampler_chain_default_params())
        if options.repeatPenalty != 1 {
            llama_sampler_chain_add(chain, llama_sampler_init_penalties(llama_vocab_n_tokens(vocab), 64, Float(options.repeatPenalty), 0, 0))
        }
        if options.temperature <= 0 {
            llama_sampler_chain_add(chain, llama_sampler_init_greedy())
            return
        }
        if options.topK > 0 { llama_sampler_chain_add(chain, llama_sampler_init_top_k(Int32(options.topK))) }
        if options.topP < 1 { llama_sampler_chain_add(chain, llama_sampler_init_top_p(Float(options.topP), 1)) }
        if options.minP > 0 { llama_sampler_chain_add(chain, llama_sampler_init_min_p(Float(options.minP), 1)) }
        llama_sampler_chain_add(chain, llama_sampler_init_temp(Float(options.temperature)))
        llama_sampler_chain_add(chain, llama_sampler_init_dist(options.seed ?? UInt32.random(in: 0...UInt32.max - 1)))
    }

    deinit {
        llama_sampler_free(chain)
        if let grammar { llama_sampler_free(grammar) }
    }

    private static func makeGrammar(_ grammar: Grammar, weights: LlamaWeights) -> UnsafeMutablePointer<llama_sampler>? {
        guard grammar.lazy else { return llama_sampler_init_grammar(weights.vocab, grammar.gbnf, grammar.root) }
        let tokens: [llama_token] = grammar.triggerTokens.compactMap { text in
            let ids = weights.tokenize(text, addSpecial: false)
            return ids.count == 1 ? ids[0] : nil
        }
        let patterns = grammar.triggerPatterns.map { strdup($0) }
        defer { patterns.forEach { free($0) } }
        var pointers = patterns.map { UnsafePointer<CChar>($0) }
        return pointers.withUnsafeMutableBufferPointer { patternBuffer in
            tokens.withUnsafeBufferPointer { tokenBuffer in
                llama_sampler_init_grammar_lazy_patterns(weights.vocab, grammar.gbnf, grammar.root,
                                                         patternBuffer.baseAddress, patternBuffer.count,
                                                         tokenBuffer.baseAddress, tokenBuffer.count)
            }
        }
    }

    /// Samples the next token from `logits`, one for each token of the vocabulary. Throws when
    /// the grammar allows no token at all (accepting a forbidden token would abort inside llama.cpp).
    func sample(logits: UnsafePointer<Float>) throws -> llama_token {
        var token = pick(logits, constrained: false)
        if let grammar {
            if !allows(token) { token = rescue(logits) ?? pick(logits, constrained: true) }
            guard allows(token) else {
                throw LooplError(.generationFailed, "The grammar allows no next token; the tool schema may be unsatisfiable.")
            }
            llama_sampler_accept(grammar, token)
        }
        llama_sampler_accept(chain, token)
        return token
    }

    /// Takes the longest start of `tokens` that the grammar allows as the first tokens, and returns it.
    func takeLead(_ tokens: [llama_token]) -> [llama_token] {
        guard let grammar else { return [] }
        var taken: [llama_token] = []
        for token in tokens {
            guard allows(token) else { break }
            llama_sampler_accept(grammar, token)
            llama_sampler_accept(chain, token)
            taken.append(token)
        }
        return taken
    }

    /// Takes `token` as the next one without sampling (a closing marker the backend writes).
    /// Throws when the grammar forbids it.
    func force(_ token: llama_token) throws -> llama_token {
        guard allows(token) else { throw LooplError(.generationFailed, "The grammar forbids the closing marker of the thinking.") }
        if let grammar { llama_sampler_accept(grammar, token) }
        llama_sampler_accept(chain, token)
        return token
    }

    /// Whether the grammar accepts `token` next.
    private func allows(_ token: llama_token) -> Bool {
        guard let grammar else { return true }
        var single = llama_token_data(id: token, logit: 1, p: 0)
        return withUnsafeMutablePointer(to: &single) { pointer in
            var array = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
            llama_sampler_apply(grammar, &array)
            return pointer.pointee.logit.isFinite
        }
    }

    /// The constrained pick made from the `rescueWidth` highest logits alone, when it is the one
    /// the whole vocabulary gives: greedy, once any of them is allowed (the first allowed in rank
    /// order is the highest allowed); a leading top-k, once `k` of them are (the chain then sees
    /// the same `k` tokens). Nil otherwise.
    private func rescue(_ logits: UnsafePointer<Float>) -> llama_token? {
        guard let grammar, rescueWidth > 0, greedy || leadingTopK != nil else { return nil }
        var ranked = LlamaSampler.highest(logits, count: vocabularySize, keep: rescueWidth)
        let token = ranked.withUnsafeMutableBufferPointer { buffer -> llama_token? in
            var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
            llama_sampler_apply(grammar, &array)
            var allowed = buffer.filter { $0.logit.isFinite }
            if greedy { return allowed.first?.id }
            guard let k = leadingTopK, allowed.count >= k else { return nil }
            return allowed.withUnsafeMutableBufferPointer { chainPick($0) }
        }
        if token != nil { rescued += 1 }
        return token
    }

    /// The `keep` highest of `count` logits as candidates, highest first, ties in index order (the
    /// order in which greedy sampling over the whole vocabulary prefers them).
    static func highest(_ logits: UnsafePointer<Float>, count: Int, keep: Int) -> [llama_token_data] {
        var top: [llama_token_data] = []
        top.reserveCapacity(keep + 1)
        var floor = -Float.infinity
        for index in 0..<count where top.count < keep || logits[index] > floor {
            let entry = llama_token_data(id: llama_token(index), logit: logits[index], p: 0)
            let place = top.firstIndex { $0.logit < entry.logit } ?? top.count
            top.insert(entry, at: place)
            if top.count > keep { top.removeLast() }
            if top.count == keep, let last = top.last { floor = last.logit }
        }
        return top
    }

    /// Runs the chain (after the grammar when `constrained`) over all the logits.
    private func pick(_ logits: UnsafePointer<Float>, constrained: Bool) -> llama_token {
        if greedy, !constrained { return LlamaSampler.argmax(logits, count: vocabularySize) }
        return candidates.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                buffer[index] = llama_token_data(id: llama_token(index), logit: logits[index], p: 0)
            }
            if constrained, let grammar {
                var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
                llama_sampler_apply(grammar, &array)
            }
            return chainPick(buffer) ?? 0
        }
    }

    /// The chain's pick among `candidates`, or nil when it selects none.
    private func chainPick(_ candidates: UnsafeMutableBufferPointer<llama_token_data>) -> llama_token? {
        var array = llama_token_data_array(data: candidates.baseAddress, size: candidates.count, selected: -1, sorted: false)
        llama_sampler_apply(chain, &array)
        let selected = Int(array.selected)
        return selected >= 0 && selected < array.size ? array.data[selected].id : nil
    }

    /// The first index of the highest of `count` logits: what llama.cpp's greedy sampler picks,
    /// without copying the vocabulary into candidates first.
    static func argmax(_ logits: UnsafePointer<Float>, count: Int) -> llama_token {
        var lanes = SIMD8<Float>(repeating: -.infinity)
        var index = 0
        while index + 8 <= count {
            let next = UnsafeRawPointer(logits + index).loadUnaligned(as: SIMD8<Float>.self)
            lanes.replace(with: next, where: next .> lanes)
            index += 8
        }
        var highest = lanes.max()
        while index < count {
            highest = max(highest, logits[index])
            index += 1
        }
        for index in 0..<count where logits[index] == highest { return llama_token(index) }
        return 0
    }
}
