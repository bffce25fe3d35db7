import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Several calls in one turn on the default model: allowed unless `parallelToolCalls` is false.
@Suite(.serialized) struct ParallelCallTests {
    static let add = ToolSpec(name: "add", description: "Add two integers.",
                              parameters: ["type": "object", "required": ["a", "b"],
                                           "properties": ["a": ["type": "integer"], "b": ["type": "integer"]]])

    @Test(.timeLimit(.minutes(10)))
    func twoSumsGiveTwoCallsOrOneWhenParallelIsOff() async throws {
        let model = try LlamaModel(configuration: .init(contextLength: 1024, threads: 2))
        var options = GenerationOptions.greedy(maxTokens: 96)
        options.toolChoice = .required
        options.parallelToolCalls = true
        let suite = ModelConformance(model: model)
        let question: [Message] = [.user("Add 2 and 3, and add 4 and 5.")]
        let parallel = try await suite.run("parallel", question, tools: [Self.add], options: options)
        options.parallelToolCalls = false
        let single = try await suite.run("single", question, tools: [Self.add], options: options)
        await model.close()
        // The 135M model writes two calls here, but both as add(1, 2): the values are beyond it.
        let calls = parallel.toolCalls.map { JSONValue.object($0.arguments) }
        #expect(parallel.toolCalls.count == 2 && parallel.toolCalls.allSatisfy { $0.name == "add" }, "\(calls)")
        #expect(single.toolCalls.count == 1, "\(single.toolCalls)")
    }
}
