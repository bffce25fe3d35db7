import CLlama
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Generation with the default model under a grammar: whatever the model wants to say, the text
/// that comes out is what the grammar describes.
@Suite(.serialized) struct GrammarGenerationTests {
    /// Generates greedily (or with `seed`) after a ChatML prompt under `grammar`. Like llama.cpp's
    /// common sampler it first samples freely and applies the grammar to the whole vocabulary only
    /// when the grammar forbids the token picked.
    static func generate(system: String, user: String, grammar: Grammar, seed: UInt32? = nil,
                         maxTokens: Int = 160) throws -> String {
        let weights = try #require(GrammarSamplerTests.weights, "the default model did not load")
        var params = llama_context_default_params()
        params.n_ctx = 1024
        params.n_batch = 1024
        params.n_threads = 2
        params.n_threads_batch = 2
        let context = try #require(llama_init_from_model(weights.pointer, params))
        defer { llama_free(context) }
        let chain = try #require(llama_sampler_chain_init(llama_sampler_chain_default_params()))
        defer { llama_sampler_free(chain) }
        if let seed {
            llama_sampler_chain_add(chain, llama_sampler_init_top_k(40))
            llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8))
            llama_sampler_chain_add(chain, llama_sampler_init_dist(seed))
        } else {
            llama_sampler_chain_add(chain, llama_sampler_init_greedy())
        }
        let probe = try GrammarSamplerTests.probe(grammar)
        let vocabularySize = Int(llama_vocab_n_tokens(weights.vocab))
        let prompt = "<|im_start|>system\n\(system)<|im_end|>\n<|im_start|>user\n\(user)<|im_end|>\n<|im_start|>assistant\n"
        var input = weights.tokenize(prompt, addSpecial: true)
        var bytes: [UInt8] = []
        for _ in 0..<maxTokens {
            let status = input.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
            }
            try #require(status == 0)
            let logits = try #require(llama_get_logits_ith(context, -1))
            let all = (0..<vocabularySize).map { llama_token_data(id: llama_token($0), logit: logits[$0], p: 0) }
            /// The chain's pick among `candidates`, after the grammar when `constrained`; nil when the grammar allows none.
            func pick(_ candidates: [llama_token_data], constrained: Bool) -> llama_token? {
                var candidates = candidates
                return candidates.withUnsafeMutableBufferPointer { buffer -> llama_token? in
                    var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
                    if constrained {
                        llama_sampler_apply(probe.sampler, &array)
                        guard buffer.contains(where: { $0.logit.isFinite }) else { return nil }
                    }
                    llama_sampler_apply(chain, &array)
                    return array.selected >= 0 ? array.data[Int(array.selected)].id : nil
                }
            }
            // Free pick first; then the grammar over the 256 likeliest tokens; then over all of them
            // (the grammar over the whole vocabulary costs about a second a token on a busy machine).
            var token = pick(all, constrained: false) ?? llama_vocab_eos(weights.vocab)
            if !probe.allows(token) {
                let likeliest = Array(all.sorted { $0.logit > $1.logit }.prefix(256))
                token = try #require(pick(likeliest, constrained: true) ?? pick(all, constrained: true))
            }
            llama_sampler_accept(probe.sampler, token)
            llama_sampler_accept(chain, token)
            if weights.isEndOfGeneration(token) { break }
            bytes += weights.piece(token)
            input = [token]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let tools = GrammarSamplerTests.tools.filter { ["get_weather", "web_search", "read_file", "now"].contains($0.name) }

    static var hermesSystem: String {
        "You can call functions. The functions:\n<tools>\n"
            + tools.map { $0.openAIValue.jsonText() }.joined(separator: "\n")
            + "\n</tools>\nCall one as <tool_call>\n{\"name\": <name>, \"arguments\": <arguments>}\n</tool_call>"
    }

    // Few and short: on two busy cores the prompt alone takes half a minute to decode.
    static let prompts = ["What is the weather in Paris?", "Search the web for Swift 6 concurrency.", "What time is it?"]

    @Test(.timeLimit(.minutes(10)), arguments: prompts)
    func requiredToolChoiceGivesAValidHermesCall(_ prompt: String) throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: false))
        let text = try Self.generate(system: Self.hermesSystem, user: prompt, grammar: grammar, maxTokens: 120)
        let result = ToolCallParser(format: .hermes).parse(text)
        let call = try #require(result.toolCalls.first, "no call in: \(text)")
        #expect(result.toolCalls.count == 1 && result.content.isEmpty, "\(text)")
        let tool = try #require(Self.tools.first { $0.name == call.name })
        #expect(SchemaValidator(schema: tool.parameters).errors(.object(call.arguments)) == [], "\(text)")
    }

    // Schemas with free-text strings are left out: the 135M model can ramble in a string past any token budget.
    @Test(.timeLimit(.minutes(10)), arguments: ["classification"])
    func responseFormatGivesJSONTheSchemaAccepts(_ name: String) throws {
        let example = try #require(GrammarCase.all.first { $0.name == name })
        let grammar = try #require(try ResponseFormat.jsonSchema(example.schema).grammar())
        for seed: UInt32? in [nil, 1] {
            let text = try Self.generate(system: "Answer with JSON only.", user: "Give me an example \(name) object.",
                                         grammar: grammar, seed: seed, maxTokens: 200)
            let value = try JSONValue(parsing: text)
            #expect(SchemaValidator(schema: example.schema).errors(value) == [], "\(text)")
        }
    }
}
