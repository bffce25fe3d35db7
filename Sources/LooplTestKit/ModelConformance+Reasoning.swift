import Loopl

extension ModelConformance {
    /// A ChatML template whose generation prompt opens `<think>`, as R1 distills and QwQ do: a
    /// model that does not think by itself (the default model) then thinks under it.
    public static let reasoningTemplate = """
        {% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n<think>\\n' }}{% endif %}
        """

    /// Under ``reasoningTemplate`` with a budget of 8 tokens, an ``Agent`` on the model sees the
    /// thinking as reasoning, at most 8 thinking tokens (as counted, and 9 words), no text event carries
    /// thinking markup, and the answer follows.
    public func checkReasoningThePromptOpened() async throws {
        let check = "thinking the prompt opened"
        var options = AgentOptions()
        options.generation = .greedy(maxTokens: 24)
        options.generation.backend.ignoreEndOfGeneration = true
        options.generation.reasoningBudget = 8
        let agent = Agent(model: model, options: options)
        let (reasoning, text, reasoningTokens) = try await within(requestBound, check, "the run did not finish") {
            var reasoning = ""
            var text = ""
            var reasoningTokens = 0
            for try await event in agent.stream("Tell me a long story about a fox.") {
                if case .reasoning(let delta) = event { reasoning += delta }
                if case .text(let delta) = event { text += delta }
                if case .metrics(let metrics) = event, metrics.finished { reasoningTokens += metrics.reasoningTokens }
            }
            return (reasoning, text, reasoningTokens)
        }
        try expect(!reasoning.isEmpty, check, "no reasoning was streamed; the text was \(text.debugDescription)")
        try expect(!text.contains("<think>") && !text.contains("</think>"), check, "a text event carries thinking markup: \(text.debugDescription)")
        try expect(!text.isEmpty, check, "the model did not go on to an answer after its thinking")
        // Each word is a token at least, so 8 tokens (and the one that closes) hold 9 words at most;
        // a backend that does not count thinking tokens reports 0.
        let words = reasoning.split(whereSeparator: \.isWhitespace).count
        try expect(reasoningTokens <= 8 && words <= 9, check,
                   "the budget is 8 thinking tokens; the metrics report \(reasoningTokens), the thinking has \(words) words: \(reasoning.debugDescription)")
    }
}
