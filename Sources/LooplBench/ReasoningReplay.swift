import Loopl
import LooplLlama
import Synchronization

/// `loopl bench --agent --think-template FILE`: the agent conversation of a model that thinks
/// before every call, run by a real ``Agent`` (its parser, the calculator, the messages it keeps)
/// on prompts that the chat template renders, counted with the model's tokenizer the way the
/// in-process backend reuses its cache: the longest common prefix of what the cache holds (the
/// last prompt and what the model wrote after it) and the next prompt. The default model does not
/// think; this shows, for any template, what each iteration evaluates when the model did.
enum ReasoningReplay {
    /// The name of the replay's rows and goal: its cache is simulated (the longest common prefix
    /// rule, counted with the tokenizer), not a real ``LlamaModel``'s.
    static let rowName = "thinking (simulated cache)"

    /// One iteration: the prompt, what the cache held before it, what was reused and evaluated.
    struct Step: Sendable, Equatable {
        var promptTokens: Int
        /// Tokens in the cache: the previous prompt and the model's output after it.
        var heldTokens: Int
        var cachedPromptTokens: Int
        /// Tokens the model wrote in this iteration.
        var generatedTokens: Int
        var evaluatedTokens: Int { promptTokens - cachedPromptTokens }
    }

    /// What the model thinks before each step of the calculator task, and its answer.
    static let thoughts = [
        "The user wants 17*23, plus 100, divided by 3. First 17*23, with the calculator.",
        "17*23 is 391. Now 391+100.",
        "391+100 is 491. Now 491/3.",
        "491/3 is 163.666667. That is the answer.",
    ]
    static let expressions = ["17*23", "391+100", "491/3"]
    static let answer = "17*23 is 391; plus 100 is 491; divided by 3 that is about 163.67."

    /// Runs the task on `template` (a template's text) with the tokenizer of the model at `model`.
    static func run(template: String, model: String, reasoning: ReasoningSetting) async throws -> [Step] {
        let replay = try ReplayModel(prompt: try ChatPrompt(modelFile: model, template: template),
                                     weights: try LlamaWeights(path: model))
        var options = AgentOptions(maxIterations: thoughts.count)
        options.generation.reasoning = reasoning
        let conversation = AgentConversation.iterations()[0]
        let agent = Agent(model: replay, tools: [CalculatorTool()], options: options, messages: Array(conversation.dropLast()))
        for try await _ in agent.stream(conversation.last?.text ?? "") {}
        return replay.steps
    }

    /// The replay's steps as the report's agent rows, each with the tokens new since the step before.
    static func agentSteps(_ steps: [Step]) -> [BenchRow] {
        steps.enumerated().map { index, step in
            .agentStep(rowName, iteration: index + 1, prompt: step.promptTokens, cached: step.cachedPromptTokens,
                       previousPrompt: index == 0 ? 0 : steps[index - 1].promptTokens, ttftMs: nil)
        }
    }

    /// The steps as a table, under the template's name.
    static func table(_ steps: [Step], name: String) -> String {
        var lines = ["thinking replay on \(name), cache simulated (not a real model's): per iteration, prompt tokens, tokens the cache held, reused, evaluated, the model's own output"]
        lines.append("iteration  prompt  held  reused  evaluated  generated")
        for (index, step) in steps.enumerated() {
            lines.append([String(index + 1).padded(9), String(step.promptTokens).padded(7), String(step.heldTokens).padded(5),
                          String(step.cachedPromptTokens).padded(7), String(step.evaluatedTokens).padded(10),
                          String(step.generatedTokens).padded(10)].joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A model that writes the replay's turns (thinking, then a calculator call or the answer)
/// in its template's markup, and counts prompt tokens as the in-process cache would reuse them.
final class ReplayModel: Model {
    private let prompt: ChatPrompt
    private let weights: LlamaWeights
    private let state = Mutex<(cache: [Int32], steps: [ReasoningReplay.Step])>(([], []))

    init(prompt: ChatPrompt, weights: LlamaWeights) throws {
        guard [.hermes, .gptOSS].contains(prompt.toolCallFormat) else {
            throw LooplError(.invalidRequest, "The thinking replay writes calls as Hermes or gpt-oss markup; this template writes \(prompt.toolCallFormat).")
        }
        self.prompt = prompt
        self.weights = weights
    }

    /// The iterations so far.
    var steps: [ReasoningReplay.Step] { state.withLock { $0.steps } }

    var contextSize: Int { get async throws { 1 << 20 } }

    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        .generating { raw in
            let offered = self.prompt.offered(tools, options: options)
            let text = try self.prompt.text(messages: messages, tools: offered, reasoning: TemplateReasoning.setting(of: options))
            let opened = ReasoningMarkup.opened(byPrompt: text)
            let continuation = LiftingContinuation(raw, format: self.prompt.toolCallFormat, tools: offered, opened: opened)
            let tokens = self.weights.tokenize(text, addSpecial: true)
            let index = self.state.withLock { $0.steps.count }
            let output = self.turn(index, opened: opened != nil)
            let written = self.weights.tokenize(output, addSpecial: false)
            let step = self.state.withLock { state -> ReasoningReplay.Step in
                // The in-process rule: the longest common prefix, and at least one token evaluated.
                let reused = min(zip(state.cache, tokens).prefix { $0 == $1 }.count, tokens.count - 1)
                let step = ReasoningReplay.Step(promptTokens: tokens.count, heldTokens: state.cache.count, cachedPromptTokens: reused,
                                               generatedTokens: written.count)
                state.cache = tokens + written
                state.steps.append(step)
                return step
            }
            var rest = Substring(output)
            while !rest.isEmpty {
                continuation.yield(.text(String(rest.prefix(4))))
                rest = rest.dropFirst(4)
            }
            let last = index >= ReasoningReplay.expressions.count
            continuation.yield(.metrics(Metrics(promptTokens: step.promptTokens, cachedPromptTokens: step.cachedPromptTokens,
                                                generatedTokens: step.generatedTokens, contextUsed: step.promptTokens + step.generatedTokens,
                                                contextMax: 1 << 20, finished: true, stopReason: last ? .endTurn : .toolCall)))
        }
    }

    /// What the model writes in iteration `index`: its thinking (without the opening marker when
    /// the prompt `opened` it), then a call or the answer.
    private func turn(_ index: Int, opened: Bool) -> String {
        let thought = ReasoningReplay.thoughts[min(index, ReasoningReplay.thoughts.count - 1)]
        let expression = index < ReasoningReplay.expressions.count ? ReasoningReplay.expressions[index] : nil
        if prompt.toolCallFormat == .gptOSS {
            let analysis = (opened ? "" : "<|channel|>analysis<|message|>") + thought + "<|end|><|start|>assistant"
            guard let expression else { return analysis + "<|channel|>final<|message|>" + ReasoningReplay.answer }
            return analysis + "<|channel|>commentary to=functions.calculator <|constrain|>json<|message|>{\"expression\":\"\(expression)\"}<|call|>"
        }
        let reasoning = (opened ? "" : "<think>\n") + thought + "\n</think>\n\n"
        guard let expression else { return reasoning + ReasoningReplay.answer }
        return reasoning + "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"\(expression)\"}}\n</tool_call>"
    }

    func close() async {}
}
