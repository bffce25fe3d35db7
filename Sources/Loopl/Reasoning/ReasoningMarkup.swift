/// The markers around a model's reasoning: `<think>…</think>`, or a family's own (`[THINK]…[/THINK]`,
/// `<seed:think>…</seed:think>`, gpt-oss's analysis channel, ...), as ``ToolCallParser`` reads them.
package struct ReasoningMarkup: Sendable, Hashable {
    /// What opens the reasoning.
    package var open: String
    /// What ends it in the model's text.
    package var close: String
    /// What a backend writes to end the reasoning early: ``close``, and for a family that starts a
    /// new message for its answer (gpt-oss) that message's header too.
    package var forcedClose: String

    package init(open: String, close: String, forcedClose: String? = nil) {
        self.open = open
        self.close = close
        self.forcedClose = forcedClose ?? close
    }

    /// `<think>…</think>`, which every family reads.
    package static let think = ReasoningMarkup(open: "<think>", close: "</think>")
    /// gpt-oss's analysis channel, whose answer comes in a message of its own.
    package static let harmony = ReasoningMarkup(open: "<|channel|>analysis<|message|>", close: "<|end|>",
                                               forcedClose: "<|end|><|start|>assistant")

    /// Every markup the parser reads as reasoning: `<think>` first, then each family's own.
    package static let all: [ReasoningMarkup] = {
        var markups = [think]
        for family in ToolCallFamily.all {
            if let reasoning = family.reasoning { markups.append(ReasoningMarkup(open: reasoning.open, close: reasoning.close)) }
        }
        markups.append(harmony)
        var seen = Set<String>()
        return markups.filter { seen.insert($0.open).inserted }
    }()

    /// The markup whose opener ends `prompt` (spaces and line breaks may follow it): the prompt
    /// opened the reasoning, so the model's text starts inside it. nil when it does not.
    package static func opened(byPrompt prompt: String) -> ReasoningMarkup? {
        let end = prompt.utf8.lastIndex { !ByteCursor.isSpace($0) }.map { prompt.utf8.index(after: $0) } ?? prompt.utf8.startIndex
        let text = prompt.utf8[..<end]
        return all.first { text.suffix($0.open.utf8.count).elementsEqual($0.open.utf8) }
    }

    /// The markup of a model whose tool calls are written in `format`: the family's own reasoning
    /// block, else `<think>`.
    package static func of(_ format: ToolCallFormat) -> ReasoningMarkup {
        if format == .gptOSS { return harmony }
        guard let reasoning = ToolCallFamily.all.first(where: { $0.format == format })?.reasoning else { return think }
        return ReasoningMarkup(open: reasoning.open, close: reasoning.close)
    }
}
