import CLlama
import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Loopl's own sampler under a grammar, fed text token by token: each token is offered as the
/// clear favourite of the logits, and the grammar allows it when the sampler picks it.
final class GrammarProbe {
    let weights: LlamaWeights
    let sampler: LlamaSampler
    private var logits: [Float]

    init(_ grammar: Grammar, weights: LlamaWeights) throws {
        self.weights = weights
        sampler = try LlamaSampler(options: .greedy(), weights: weights, grammar: grammar)
        logits = [Float](repeating: 0, count: Int(llama_vocab_n_tokens(weights.vocab)))
    }

    /// True when the sampler picks `token` from logits that favour it (and so accepts it).
    func offer(_ token: llama_token) -> Bool {
        let index = Int(token)
        guard logits.indices.contains(index) else { return false }
        logits[index] = 1
        defer { logits[index] = 0 }
        let picked = logits.withUnsafeBufferPointer { buffer -> llama_token? in
            guard let base = buffer.baseAddress else { return nil }
            return try? sampler.sample(logits: base)
        }
        return picked == token
    }

    /// Feeds `text`; true when every token is taken and the grammar may end after it.
    func accepts(_ text: String) -> Bool {
        for token in weights.tokenize(text, addSpecial: false) {
            guard offer(token) else { return false }
        }
        return offer(llama_vocab_eos(weights.vocab))
    }
}

@Suite(.serialized) struct GrammarSamplerTests {
    static let weights: LlamaWeights? = try? LlamaWeights(path: LooplHome.defaultModel)

    static func probe(_ grammar: Grammar) throws -> GrammarProbe {
        let weights = try #require(Self.weights, "the default model did not load")
        do {
            return try GrammarProbe(grammar, weights: weights)
        } catch {
            Issue.record("llama.cpp rejected the grammar: \(error)\n\(grammar.gbnf)")
            throw error
        }
    }

    /// The rescue's ranking: the highest logits, highest first and ties in index order, as a full
    /// sort gives them.
    @Test func theHighestLogitsComeInGreedyOrder() {
        var generator = SystemRandomNumberGenerator()
        let logits = (0..<5000).map { _ in Float(Int.random(in: -40...40, using: &generator)) / 4 }
        let expected = logits.indices.sorted { logits[$0] != logits[$1] ? logits[$0] > logits[$1] : $0 < $1 }.prefix(256)
        let ranked = logits.withUnsafeBufferPointer { LlamaSampler.highest($0.baseAddress!, count: $0.count, keep: 256) }
        #expect(ranked.map { Int($0.id) } == Array(expected))
        #expect(ranked.map(\.logit) == expected.map { logits[$0] })
    }

    @Test(.timeLimit(.minutes(2)), arguments: GrammarCase.all)
    func schemaGrammarsAcceptValidAndRejectInvalidTokenByToken(_ example: GrammarCase) throws {
        // Spacious: the table's instances are written with line breaks and indentation.
        let grammar = try JSONSchemaGrammar.convert(schema: example.schema, spacing: .spacious)
        for instance in example.valid {
            #expect(try Self.probe(grammar).accepts(instance), "\(example.name) should accept \(instance)")
        }
        for instance in example.invalid {
            #expect(try !Self.probe(grammar).accepts(instance), "\(example.name) should reject \(instance)")
        }
    }

    static let tools: [ToolSpec] = ["get_weather", "web_search", "read_file", "send_email", "create_event"].map { name in
        ToolSpec(name: name, description: name, parameters: GrammarCase.all.first { $0.name == name }?.schema ?? [:])
    } + [ToolSpec(name: "now", description: "The time")]

    static let families = ToolCallGrammar.families.map(\.rawValue)

    @Test(.timeLimit(.minutes(2)), arguments: families)
    func everyToolGrammarCompiles(_ family: String) throws {
        for choice in [ToolChoice.required, .auto, .tool("read_file")] {
            for parallel in [false, true] {
                let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: family),
                                                                    choice: choice, parallel: parallel))
                _ = try Self.probe(grammar)
            }
        }
    }

    /// Calls written by hand per family: the grammar for `required` takes them and refuses the others.
    static let calls: [(family: String, valid: [String], invalid: [String])] = [
        ("hermes",
         ["<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}\n</tool_call>",
          "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"],
         ["I will call it.\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>",
          "<tool_call>\n{\"name\": \"fly\", \"arguments\": {}}\n</tool_call>",
          "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
          "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}"]),
        ("llama3",
         ["{\"name\": \"web_search\", \"parameters\": {\"query\": \"swift\", \"max_results\": 3}}"],
         ["{\"name\": \"web_search\", \"arguments\": {\"query\": \"swift\"}}",
          "{\"name\": \"web_search\", \"parameters\": {\"query\": \"swift\", \"max_results\": 30}}"]),
        ("mistral",
         ["[TOOL_CALLS][{\"name\": \"now\", \"arguments\": {}, \"id\": \"abc123XYZ\"}]",
          "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"/tmp/a.txt\"}}]"],
         ["[{\"name\": \"now\", \"arguments\": {}}]",
          "[TOOL_CALLS][{\"name\": \"now\", \"arguments\": {}, \"id\": \"short\"}]"]),
        ("qwen3-coder",
         ["<tool_call>\n<function=get_weather>\n<parameter=location>\nParis, France\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
          "<tool_call>\n<function=web_search>\n<parameter=query>\nif a < b { return \"x\" }\n</parameter>\n<parameter=max_results>\n5\n</parameter>\n</function>\n</tool_call>"],
         ["<tool_call>\n<function=get_weather>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
          "<tool_call>\n<function=web_search>\n<parameter=query>\nx\n</parameter>\n<parameter=max_results>\nfive\n</parameter>\n</function>\n</tool_call>"]),
        ("mistral",
         ["[TOOL_CALLS]get_weather[ARGS]{\"location\": \"Paris\"}", "[TOOL_CALLS]now[ARGS]{}"],
         ["[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}", "[TOOL_CALLS]fly[ARGS]{}"]),
        ("glm-4.5",
         ["<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
          "<tool_call>web_search\n<arg_key>query</arg_key>\n<arg_value>a < b</arg_value>\n<arg_key>max_results</arg_key>\n<arg_value>4</arg_value>\n</tool_call>"],
         ["<tool_call>web_search\n<arg_key>max_results</arg_key>\n<arg_value>4</arg_value>\n</tool_call>",
          "<tool_call>get_weather\n<arg_key>location</arg_key>\n<arg_value>a</arg_value>b</arg_value>\n</tool_call>"]),
        ("minimax-m2",
         ["<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"location\">Paris</parameter>\n</invoke>\n</minimax:tool_call>"],
         ["<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"location\">\nParis</parameter>\n</invoke>\n</minimax:tool_call>",
          "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"unit\">kelvin</parameter>\n</invoke>\n</minimax:tool_call>"]),
        ("olmo3",
         ["<function_calls>\nget_weather(location=\"Paris\", unit=\"celsius\")\n</function_calls>", "<function_calls>\nnow()\n</function_calls>"],
         ["<function_calls>\nget_weather(unit=\"celsius\")\n</function_calls>", "now()", "<function_calls>\nnow()", "<function_calls>\nnow()\nnow()\n</function_calls>"]),
        ("step3",
         ["<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"location\">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"],
         ["<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
          "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"now\"></steptml:invoke><｜tool_call_end｜>"]),
        ("longcat",
         ["<longcat_tool_call>{\"name\": \"now\", \"arguments\": {}}</longcat_tool_call>"],
         ["<longcat_tool_call>{\"name\": \"now\", \"arguments\": {}}", "{\"name\": \"now\", \"arguments\": {}}"]),
        ("granite-20b-fc",
         ["<function_call> {\"name\": \"now\", \"arguments\": {}}"],
         ["<function_call>{\"name\": \"fly\", \"arguments\": {}}", "{\"name\": \"now\", \"arguments\": {}}"]),
        ("pythonic",
         ["[get_weather(location=\"Paris\", unit=\"celsius\")]", "[now()]"],
         ["[get_weather(unit=\"celsius\")]", "get_weather(location=\"Paris\")", "[now(]"]),
        ("deepseek-v3.1",
         ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>now<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"],
         ["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>now<｜tool▁sep｜>{}<｜tool▁calls▁end｜>"]),
        ("kimi-k2",
         ["<|tool_calls_section_begin|><|tool_call_begin|>functions.now:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"],
         ["<|tool_calls_section_begin|><|tool_call_begin|>now:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"]),
        ("command-r7b",
         ["<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"now\", \"parameters\": {}}]<|END_ACTION|>"],
         ["<|START_ACTION|>[{\"tool_name\": \"now\", \"parameters\": {}}]<|END_ACTION|>"]),
        ("gpt-oss",
         ["<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": \"Oslo\"}<|call|>"],
         ["<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\": 1}<|call|>"]),
        ("functionary-v3.2",
         ["get_weather\n{\"location\": \"Oslo\"}", ">>>now\n{}"],
         ["all\nHello", "now\n{\"x\": 1}"]),
        ("kimi-k3",
         ["<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"location\" type=\"string\"<|sep|>Oslo<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"],
         ["<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"]),
    ]

    @Test(.timeLimit(.minutes(2)), arguments: 0..<calls.count)
    func toolGrammarsAcceptTheirFamilysCallsTokenByToken(_ index: Int) throws {
        let (family, valid, invalid) = Self.calls[index]
        // Spacious: the samples are written with the spaces that models put in JSON.
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: family),
                                                            choice: .required, parallel: false, spacing: .spacious))
        for text in valid { #expect(try Self.probe(grammar).accepts(text), "\(family) should accept \(text)") }
        for text in invalid { #expect(try !Self.probe(grammar).accepts(text), "\(family) should reject \(text)") }
    }

    @Test(.timeLimit(.minutes(2)))
    func lazyGrammarsLetProseThroughUntilTheTrigger() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .auto, parallel: false))
        #expect(try Self.probe(grammar).accepts("Just an answer, no tools needed."))
        #expect(try Self.probe(grammar).accepts("Let me check.\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"))
        #expect(try !Self.probe(grammar).accepts("Let me check.\n<tool_call>\n{\"name\": \"fly\", \"arguments\": {}}\n</tool_call>"))

        let mistral = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "mistral"),
                                                            choice: .auto, parallel: true))
        #expect(try Self.probe(mistral).accepts("Sure. [TOOL_CALLS][{\"name\": \"now\", \"arguments\": {}}, {\"name\": \"now\", \"arguments\": {}}]"))
        #expect(try !Self.probe(mistral).accepts("Sure. [TOOL_CALLS][{\"name\": \"now\", \"arguments\": {\"x\": 1}}]"))

        let llama3 = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "llama3"),
                                                           choice: .auto, parallel: false))
        #expect(try Self.probe(llama3).accepts("The weather is fine."))
        #expect(try Self.probe(llama3).accepts("{\"name\": \"now\", \"parameters\": {}}"))
        #expect(try !Self.probe(llama3).accepts("{\"name\": \"now\", \"parameters\": {\"x\": true}}"))

        let functionary = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "functionary-v3.2"),
                                                                choice: .auto, parallel: true))
        #expect(try Self.probe(functionary).accepts("all\nIt is sunny."))
        #expect(try Self.probe(functionary).accepts("all\nLet me look.>>>now\n{}>>>now\n{}"))
        #expect(try !Self.probe(functionary).accepts("all\nLet me look.>>>now\n{\"x\": 1}"))

        let deepSeek = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "deepseek-r1"),
                                                             choice: .auto, parallel: false))
        #expect(try Self.probe(deepSeek).accepts("<think>Hm.</think>Hello."))
        #expect(try Self.probe(deepSeek).accepts("<think>Hm.</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"))
    }

    @Test(.timeLimit(.minutes(2)))
    func reasoningBeforeTheCallIsAllowedWhenAsked() throws {
        let optional = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required,
                                                             parallel: false, reasoning: .optional))
        let call = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"
        #expect(try Self.probe(optional).accepts("<think>The user wants the time.</think>\n" + call))
        #expect(try Self.probe(optional).accepts(call))
        #expect(try !Self.probe(optional).accepts("Sure. " + call))
        let open = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required,
                                                         parallel: false, reasoning: .open))
        #expect(try Self.probe(open).accepts("The user wants the time.</think>\n" + call))
        #expect(try !Self.probe(open).accepts(call))
    }
}
