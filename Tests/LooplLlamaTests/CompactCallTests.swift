import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// A forced call on the default model: one line of JSON, whose forced opening is evaluated with the
/// prompt, in fewer tokens than under the spacious grammar.
@Suite(.serialized) struct CompactCallTests {
    static let add = ToolSpec(name: "add", description: "Add three integers.",
                              parameters: ["type": "object", "required": ["a", "b", "c"],
                                           "properties": ["a": ["type": "integer"], "b": ["type": "integer"], "c": ["type": "integer"]]])

    /// The completion tokens and the call of a forced `add` through the in-process backend.
    static func forcedAdd(spacing: GrammarSpacing) async throws -> (tokens: Int, call: ToolCall?) {
        var configuration = LlamaModel.Configuration(contextLength: 1024, threads: 2)
        configuration.grammarSpacing = spacing
        let model = try LlamaModel(configuration: configuration)
        var options = GenerationOptions.greedy(maxTokens: 64)
        options.toolChoice = .required
        let turn = try await ModelConformance(model: model).run("forced add", [.user("Add 2, 6 and 5.")], tools: [add], options: options)
        await model.close()
        return (turn.metrics.last?.generatedTokens ?? 0, turn.toolCalls.first)
    }

    @Test(.timeLimit(.minutes(10)))
    func aForcedCallCostsFewTokens() async throws {
        let separated = try await Self.forcedAdd(spacing: .separated)
        let call = try #require(separated.call, "no call")
        #expect(call.name == "add")
        #expect(JSONValue.object(call.arguments) == ["a": 2, "b": 6, "c": 5], "\(JSONValue.object(call.arguments))")
        let spacious = try await Self.forcedAdd(spacing: .spacious)
        // Measured: 26 separated, 40 spacious. The call's text is 39 tokens in the tokenizer's own
        // split; the 15 of `<tool_call>\n{"name": "add", "arguments":`, which the grammar forces,
        // are evaluated with the prompt (the spacious grammar forces only `<tool_call>\n{`).
        #expect(separated.tokens <= 35, "separated \(separated.tokens)")
        #expect(separated.tokens < spacious.tokens, "separated \(separated.tokens), spacious \(spacious.tokens)")
    }

    @Test(.timeLimit(.minutes(5)))
    func aForcedCallHasNoLineBreakInside() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: [Self.add], format: .hermes, choice: .required, parallel: false))
        let system = "Call the tool `add` (integers a, b, c) inside <tool_call></tool_call> tags."
        let text = try GrammarGenerationTests.generate(system: system, user: "Add 2, 6 and 5.",
                                                       grammar: grammar, maxTokens: 64)
        let (open, close) = ("<tool_call>\n", "\n</tool_call>")
        #expect(text.hasPrefix(open + "{") && text.hasSuffix("}" + close), "\(text.debugDescription)")
        let inside = String(text.dropFirst(open.count).dropLast(close.count))
        #expect(!inside.contains("\n"), "\(text.debugDescription)")
    }
}
