import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Several calls in one turn on the default model: allowed unless `parallelToolCalls` is false,
/// and a call the turn already made ends it.
@Suite(.serialized) struct ParallelCallTests {
    static let add = ToolSpec(name: "add", description: "Add two integers.",
                              parameters: ["type": "object", "required": ["a", "b"],
                                           "properties": ["a": ["type": "integer"], "b": ["type": "integer"]]])
    static let hcf = ToolSpec(name: "math_hcf", description: "Calculate the highest common factor of two numbers.",
                              parameters: ["type": "object", "required": ["number1", "number2"],
                                           "properties": ["number1": ["type": "integer", "description": "First number."],
                                                          "number2": ["type": "integer", "description": "Second number."]]])
    static let weather = ToolSpec(name: "get_weather", description: "Get the current weather in a city.",
                                  parameters: ["type": "object", "required": ["city"], "properties": ["city": ["type": "string"]]])

    @Test(.timeLimit(.minutes(10)))
    func twoCitiesGiveTwoCallsOrOneWhenParallelIsOffAndARepeatEndsTheTurn() async throws {
        let model = try LlamaModel(configuration: .init(contextLength: 1024, threads: 2))
        var options = GenerationOptions.greedy(maxTokens: 160)
        options.toolChoice = .required
        options.parallelToolCalls = true
        let suite = ModelConformance(model: model)
        let cities: [Message] = [.user("What is the weather in Paris and in London?")]
        let parallel = try await suite.run("parallel", cities, tools: [Self.weather, Self.add], options: options)
        // BFCL's simple_python_20: the 135M model writes math_hcf(1, 24) three times when let run
        // (113 tokens through `loopl serve` before repeats ended the turn).
        let repeated = try await suite.run("repeat", [.user("Find the highest common factor of 36 and 24.")], tools: [Self.hcf],
                                           options: options)
        options.parallelToolCalls = false
        let single = try await suite.run("single", cities, tools: [Self.weather, Self.add], options: options)
        await model.close()
        #expect(parallel.toolCalls.map { $0.arguments["city"]?.stringValue } == ["Paris", "London"], "\(parallel.toolCalls)")
        #expect(parallel.text == "", "the lines between calls are no content")
        #expect(single.toolCalls.count == 1, "\(single.toolCalls)")
        #expect(repeated.toolCalls.count == 1, "\(repeated.toolCalls)")
        let end = try #require(repeated.metrics.last)
        #expect(end.stopReason == .toolCall && end.generatedTokens < 100, "the turn ran on: \(end.generatedTokens) tokens, \(end.stopReason.map { "\($0)" } ?? "-")")
    }
}
