import CLlama
import Loopl

/// A llama.cpp sampler chain built from ``GenerationOptions``, freed with the value.
final class LlamaSampler {
    let chain: UnsafeMutablePointer<llama_sampler>

    init(options: GenerationOptions, vocab: OpaquePointer) {
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

    deinit { llama_sampler_free(chain) }

    /// Samples the next token from the last logits of `context`.
    func sample(_ context: OpaquePointer) -> llama_token {
        llama_sampler_sample(chain, context, -1)
    }
}
