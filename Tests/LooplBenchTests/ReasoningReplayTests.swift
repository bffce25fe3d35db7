import Foundation
import Loopl
@testable import LooplBench
import Testing

/// `loopl bench --agent --think-template`: iteration k+1 evaluates only what was added since
/// iteration k when the model thought and the template keeps the thinking; a template that drops
/// it (DeepSeek R1) costs the thinking again.
@Suite struct ReasoningReplayTests {
    static func template(_ name: String) throws -> String {
        try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Data/Templates/templates/\(name).jinja"),
                   encoding: .utf8)
    }

    @Test(.timeLimit(.minutes(2)))
    func qwen3ReusesEverythingTheCacheHeld() async throws {
        let steps = try await ReasoningReplay.run(template: try Self.template("Qwen-Qwen3-0.6B"), model: LooplHome.defaultModel, reasoning: .auto)
        #expect(steps.count == 4, "three calls and the answer")
        #expect(steps[0].cachedPromptTokens == 0)
        for (previous, step) in zip(steps, steps.dropFirst()) {
            #expect(step.heldTokens == previous.promptTokens + previous.generatedTokens)
            #expect(step.cachedPromptTokens == step.heldTokens, "the thinking and the call were reused: \(step)")
            // What is evaluated is what was added: the end of the turn, the tool's result, the next generation prompt.
            #expect(step.evaluatedTokens == step.promptTokens - previous.promptTokens - previous.generatedTokens)
            #expect(step.evaluatedTokens < 40)
        }
        let table = ReasoningReplay.table(steps, name: "Qwen3")
        #expect(table.contains("thinking replay on Qwen3"))
    }

    @Test(.timeLimit(.minutes(2)))
    func deepSeekR1DropsTheThinkingAndEvaluatesItAgain() async throws {
        let steps = try await ReasoningReplay.run(template: try Self.template("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B"),
                                                 model: LooplHome.defaultModel, reasoning: .auto)
        #expect(steps.count == 4)
        for step in steps.dropFirst() {
            #expect(step.cachedPromptTokens < step.heldTokens, "the template dropped the thinking: \(step)")
        }
    }

    @Test func otherFamiliesAreRefused() async throws {
        await #expect(throws: LooplError.self) {
            _ = try await ReasoningReplay.run(template: try Self.template("Qwen3-Coder"), model: LooplHome.defaultModel, reasoning: .auto)
        }
    }
}
