import Loopl
import LooplTestKit
import Testing

/// The thinking budget: counting thinking tokens, and closing the thinking when they are spent.
@Suite struct ReasoningBudgetTests {
    /// Feeds `tokens` as a backend would: asks for the closing marker before each, records each.
    static func run(_ budget: inout ReasoningBudget, _ tokens: [String]) -> [String] {
        var written: [String] = []
        var rest = tokens[...]
        while let token = rest.first {
            if let close = budget.closing() {
                written.append(close)
                budget.record(close)
                // The rest of the model's own thinking is never written.
                while let next = rest.first, next != "</think>" { rest = rest.dropFirst() }
                rest = rest.dropFirst()
                continue
            }
            written.append(token)
            budget.record(token)
            rest = rest.dropFirst()
        }
        return written
    }

    @Test func countsTheReasoningWithoutItsMarkers() {
        var budget = ReasoningBudget(limit: nil, promptText: "<|im_start|>assistant\n")
        _ = Self.run(&budget, ["  ", "<think>", "One", " two", " three", "</th", "ink>", "\n\n", "Answer", "."])
        // "</th" is counted: until the marker is whole it is thinking.
        #expect(budget.tokens == 4)
        #expect(!budget.isReasoning)
    }

    @Test func aBudgetOfEightClosesTheReasoning() {
        var budget = ReasoningBudget(limit: 8, promptText: "")
        let words = (1...20).map { " w\($0)" }
        let written = Self.run(&budget, ["<think>"] + words + ["</think>", "Answer."])
        #expect(written == ["<think>"] + words.prefix(8) + ["</think>", "Answer."])
        #expect(budget.tokens == 8)
        #expect(budget.closing() == nil, "the closing marker is given once")
    }

    @Test func aPromptThatOpensReasoningCountsFromTheFirstToken() {
        var budget = ReasoningBudget(limit: 2, promptText: "<｜Assistant｜><think>\n")
        #expect(budget.isReasoning)
        let written = Self.run(&budget, ["a", "b", "c", "</think>", "d"])
        #expect(written == ["a", "b", "</think>", "d"])
    }

    @Test func eachFamilyClosesWithItsOwnMarker() {
        var mistral = ReasoningBudget(limit: 1, promptText: "[INST]Hi[/INST][THINK]")
        mistral.record("x")
        #expect(mistral.closing() == "[/THINK]")
        var harmony = ReasoningBudget(limit: 1, promptText: "<|start|>assistant")
        harmony.record("<|channel|>analysis<|message|>")
        harmony.record("We")
        #expect(harmony.closing() == "<|end|><|start|>assistant")
        var seed = ReasoningBudget(limit: 0, promptText: "")
        seed.record("<seed:think>")
        #expect(seed.closing() == "</seed:think>")
    }

    @Test func noReasoningMeansNothingToClose() {
        var budget = ReasoningBudget(limit: 1, promptText: "")
        for token in ["Hello", " <think>", " there"] { budget.record(token); #expect(budget.closing() == nil) }
        #expect(budget.tokens == 0)
    }

    @Test func aCharacterIsNotCutInHalf() {
        var budget = ReasoningBudget(limit: 1, promptText: "<think>")
        budget.record("")  // the first bytes of a character
        #expect(budget.closing() == nil)
        budget.record("é")
        #expect(budget.closing() == "</think>")
    }

    /// A budget of 8 on a scripted text model: the thinking stops after 8 tokens, the closing
    /// marker comes, and the model goes on to its answer; the Agent keeps the 8 tokens.
    @Test func aBudgetOfEightThroughTheAgent() async throws {
        let words = (1...20).map { " word\($0)" }
        let model = ScriptedModel(markup: .hermes, turns: [.text(["<think>"] + words + ["</think>", "\n\n", "The answer."])])
        var options = AgentOptions()
        options.generation.reasoningBudget = 8
        let agent = Agent(model: model, options: options)
        var reasoning = ""
        var text = ""
        var last: Metrics?
        for try await event in agent.stream("Think, then answer.") {
            switch event {
            case .reasoning(let delta): reasoning += delta
            case .text(let delta): text += delta
            case .metrics(let metrics): last = metrics
            default: break
            }
        }
        #expect(reasoning == words.prefix(8).joined())
        #expect(text == "The answer.")
        #expect(last?.reasoningTokens == 8)
        #expect(last?.generatedTokens == 12, "<think>, 8 words, </think>, the line breaks and the answer")
        #expect(await agent.messages.last?.reasoning == words.prefix(8).joined().trimmingPrefix(" ").description)
        #expect(model.requests.first?.options.reasoningBudget == 8)
    }

    /// Without a budget the same script thinks to its end.
    @Test func noBudgetThinksToTheEnd() async throws {
        let words = (1...20).map { " word\($0)" }
        let model = ScriptedModel(markup: .hermes, turns: [.text(["<think>"] + words + ["</think>", "The answer."])])
        let agent = Agent(model: model)
        var reasoning = ""
        var last: Metrics?
        for try await event in agent.stream("Think, then answer.") {
            if case .reasoning(let delta) = event { reasoning += delta }
            if case .metrics(let metrics) = event { last = metrics }
        }
        #expect(reasoning == words.joined())
        #expect(last?.reasoningTokens == 20)
    }
}
