import CLlama
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Generation with the default model under a grammar: whatever the model wants to say, the text
/// that comes out is what the grammar describes. The outputs are judged by ``SchemaValidator``,
/// which SchemaValidatorTests shows rejecting.
@Suite(.serialized) struct GrammarGenerationTests {
    /// Generates greedily (or with `seed`) after a ChatML prompt under `grammar`, sampling with
    /// Loopl's own ``LlamaSampler`` (as the in-process backend does).
    static func generate(system: String, user: String, grammar: Grammar, seed: UInt32? = nil,
                         maxTokens: Int = 160) throws -> String {
        let options = seed.map { GenerationOptions(temperature: 0.8, topK: 40, seed: $0) } ?? .greedy()
        let weights = try #require(GrammarSamplerTests.weights, "the default model did not load")
        return try generate(system: system, user: user,
                            sampler: try LlamaSampler(options: options, weights: weights, grammar: grammar), maxTokens: maxTokens)
    }

    /// Generates after a ChatML prompt, sampling with `sampler`.
    static func generate(system: String, user: String, sampler: LlamaSampler, maxTokens: Int) throws -> String {
        let weights = try #require(GrammarSamplerTests.weights, "the default model did not load")
        var params = llama_context_default_params()
        params.n_ctx = 1024
        params.n_batch = 1024
        params.n_threads = 2
        params.n_threads_batch = 2
        let context = try #require(llama_init_from_model(weights.pointer, params))
        defer { llama_free(context) }
        let prompt = "<|im_start|>system\n\(system)<|im_end|>\n<|im_start|>user\n\(user)<|im_end|>\n<|im_start|>assistant\n"
        var input = weights.tokenize(prompt, addSpecial: true)
        var bytes: [UInt8] = []
        for _ in 0..<maxTokens {
            let status = input.withUnsafeMutableBufferPointer { buffer in
                llama_decode(context, llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
            }
            try #require(status == 0)
            let token = try sampler.sample(logits: try #require(llama_get_logits_ith(context, -1)))
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
        // Spacious: under the compact grammar the default model fills the web search's query with
        // a URL that never ends (the compact form is held to its tokens in CompactCallTests).
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: false,
                                                            spacing: .spacious))
        let text = try Self.generate(system: Self.hermesSystem, user: prompt, grammar: grammar, maxTokens: 120)
        let result = ToolCallParser(format: .hermes).parse(text)
        let call = try #require(result.toolCalls.first, "no call in: \(text)")
        #expect(result.toolCalls.count == 1 && result.content.isEmpty, "\(text)")
        let tool = try #require(Self.tools.first { $0.name == call.name })
        #expect(SchemaValidator(schema: tool.parameters).errors(.object(call.arguments)) == [], "\(text)")
    }

    /// A rejected pick decided among the highest-ranked tokens is the one the whole vocabulary
    /// constrained gives: greedy and sampled, the same call with the rescue as without it.
    @Test(.timeLimit(.minutes(10)))
    func theRankedRescueChoosesAsTheWholeVocabularyDoes() throws {
        let weights = try #require(GrammarSamplerTests.weights, "the default model did not load")
        // Compact: the default model wants spaces there, so its picks are rejected and rescued.
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: false,
                                                            spacing: .compact))
        for options in [GenerationOptions.greedy(), GenerationOptions(temperature: 0.8, topK: 40, seed: 7)] {
            let texts = try [256, 0].map { width in
                let sampler = try LlamaSampler(options: options, weights: weights, grammar: grammar, rescueWidth: width)
                let text = try Self.generate(system: Self.hermesSystem, user: Self.prompts[1], sampler: sampler, maxTokens: 48)
                return (text, sampler.rescued)
            }
            #expect(texts[0].1 > 0, "no rejected pick was rescued: \(texts[0].0)")
            #expect(texts[0].0 == texts[1].0, "temperature \(options.temperature)")
        }
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
