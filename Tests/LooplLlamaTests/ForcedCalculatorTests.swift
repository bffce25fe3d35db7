import Loopl
@testable import LooplLlama
import Testing

/// The default model's forced calculator calls run and are right: the tool's schema (numbers and
/// operators only, an operator required) and description carry a 135M model to usable calls.
@Suite(.serialized) struct ForcedCalculatorTests {
    static let questions: [(String, String)] = [
        ("What is 17 times 23?", "391"), ("What is 2 plus 2?", "4"), ("How much is 1024 divided by 8?", "128"),
        ("What is 45 minus 17?", "28"), ("What is 12 squared?", "144"), ("What is 15 percent of 200?", "30"),
        ("What is 7 times 8?", "56"), ("What is 100 divided by 4?", "25"), ("What is 123 plus 456?", "579"),
        ("What is 9 minus 13?", "-4"),
    ]

    @Test(.timeLimit(.minutes(10)))
    func tenQuestionsInWordsGiveCallsThatRun() async throws {
        // Spacious: under the compact grammar this model runs on inside three of the ten
        // expressions ("12*12*12*…" for 12 squared) until its tokens are spent (docs/grammar.md).
        var configuration = LlamaModel.Configuration(contextLength: 1024, threads: 2)
        configuration.grammarSpacing = .spacious
        let model = try await LlamaModel.start(configuration)
        var ran = 0, right = 0
        var seen: [String] = []
        // One call a question: with parallel calls on, the model may add a second one.
        var generation = GenerationOptions.greedy(maxTokens: 64)
        generation.parallelToolCalls = false
        for (question, expected) in Self.questions {
            let agent = Agent(model: model, tools: [CalculatorTool()],
                              options: AgentOptions(maxIterations: 1, firstToolChoice: .required, generation: generation))
            for try await event in agent.stream(question) {
                guard case .toolFinished(let result) = event else { continue }
                seen.append("\(question) → \(result.content)")
                if !result.isError { ran += 1 }
                if result.content == expected { right += 1 }
            }
        }
        await model.close()
        #expect(ran == 10, "calls that ran: \(ran) of 10\n\(seen.joined(separator: "\n"))")
        #expect(right >= 8, "right values: \(right) of 10\n\(seen.joined(separator: "\n"))")
    }
}
