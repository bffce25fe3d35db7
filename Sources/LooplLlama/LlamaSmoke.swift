import CLlama
import Loopl

/// The smallest proof that libllama works here: load a model, feed a prompt, decode greedily.
public enum LlamaSmoke {
    /// Generates up to `tokens` tokens after `prompt` (rendered as one user turn with ChatML markers)
    /// and returns the text.
    public static func generate(modelPath: String, prompt: String, tokens: Int, threads: Int32) throws -> String {
        let weights = try LlamaWeights(path: modelPath)
        var params = llama_context_default_params()
        params.n_ctx = 512
        params.n_batch = 512
        params.n_threads = threads
        params.n_threads_batch = threads
        guard let context = llama_init_from_model(weights.pointer, params) else {
            throw LooplError(.invalidModel, "llama.cpp could not create a context for \(modelPath).")
        }
        defer { llama_free(context) }
        let chat = "<|im_start|>user\n\(prompt)<|im_end|>\n<|im_start|>assistant\n"
        var input = weights.tokenize(chat, addSpecial: true)
        guard !input.isEmpty, input.count + tokens <= 512 else {
            throw LooplError(.contextOverflow, "The smoke prompt needs \(input.count) tokens plus \(tokens) to generate; the smoke context holds 512.")
        }
        let sampler = llama_sampler_init_greedy()
        defer { llama_sampler_free(sampler) }
        var bytes: [UInt8] = []
        for _ in 0..<tokens {
            let status = input.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
            }
            guard status == 0 else {
                throw LooplError(.generationFailed, "llama_decode failed with status \(status).")
            }
            let token = llama_sampler_sample(sampler, context, -1)
            if weights.isEndOfGeneration(token) { break }
            bytes += weights.piece(token)
            input = [token]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
