import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Thinking in process on the real default model, with a ChatML template whose generation prompt
/// opens `<think>` (the default model does not think by itself).
@Suite(.serialized) struct ReasoningLlamaTests {
    static func load() throws -> LlamaModel {
        try LlamaModel(configuration: .init(contextLength: 1024, threads: 2, chatTemplate: ModelConformance.reasoningTemplate))
    }

    static func generate(_ model: LlamaModel, _ options: GenerationOptions) async throws
        -> (text: String, reasoning: String, metrics: Metrics?) {
        var text = ""
        var reasoning = ""
        var metrics: Metrics?
        for try await event in model.generate(messages: [.user("Tell me a long story about a fox.")], tools: [], options: options) {
            switch event {
            case .text(let chunk): text += chunk
            case .reasoning(let chunk): reasoning += chunk
            case .metrics(let m): metrics = m
            case .toolCall: break
            }
        }
        return (text, reasoning, metrics)
    }

    /// A budget of 8: after 8 tokens of thinking the backend writes `</think>` and the model goes
    /// on; the count is in the metrics, and the thinking the prompt opened streams as reasoning.
    @Test(.timeLimit(.minutes(5)))
    func aBudgetOfEightClosesTheReasoning() async throws {
        let model = try Self.load()
        var options = GenerationOptions.greedy(maxTokens: 32)
        options.backend.ignoreEndOfGeneration = true
        options.reasoningBudget = 8
        let (text, reasoning, metrics) = try await Self.generate(model, options)
        let final = try #require(metrics)
        #expect(final.reasoningTokens == 8)
        #expect(!reasoning.isEmpty, "the thinking the prompt opened did not stream as reasoning; the text was \(text.debugDescription)")
        #expect(!text.contains("<think>") && !text.contains("</think>"), "\(text.debugDescription)")
        #expect(model.weights.tokenize(reasoning, addSpecial: false).count <= 9, "\(reasoning.debugDescription)")
        #expect(!text.isEmpty, "the model went on after the thinking")
        #expect(final.generatedTokens == 32)

        // Without a budget the same greedy run thinks on: no closing marker at that point.
        var free = options
        free.reasoningBudget = nil
        let unbounded = try await Self.generate(model, free)
        #expect(unbounded.metrics?.reasoningTokens ?? 0 > 8)
        #expect(unbounded.reasoning.hasPrefix(reasoning))
        #expect(unbounded.reasoning.count > reasoning.count, "without a budget the thinking went no further")
        await model.close()
    }

    /// Through an Agent, the thinking the prompt opened is reasoning, and no text event carries
    /// its markup.
    @Test(.timeLimit(.minutes(5)))
    func anAgentSeesReasoningThePromptOpened() async throws {
        let model = try Self.load()
        try await ModelConformance(model: model).checkReasoningThePromptOpened()
        await model.close()
    }

    /// `--think off` and a budget of 0 close the thinking in the prompt itself.
    @Test(.timeLimit(.minutes(2)))
    func offClosesReasoningInThePrompt() throws {
        let model = try Self.load()
        var options = GenerationOptions()
        #expect(try model.renderPrompt(messages: [.user("Hi")], tools: [], options: options).hasSuffix("<think>\n"))
        options.reasoning = .off
        #expect(try model.renderPrompt(messages: [.user("Hi")], tools: [], options: options).hasSuffix("<think>\n</think>"))
        options.reasoning = .on
        options.reasoningBudget = 0
        #expect(try model.renderPrompt(messages: [.user("Hi")], tools: [], options: options).hasSuffix("<think>\n</think>"))
    }
}
