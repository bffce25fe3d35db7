/// Lifts tool calls out of a `.text` model's streamed text; passes a `.native` model's text through.
struct CallLifter {
    private var parser: ToolCallParser?

    init(style: ToolCallStyle, tools: [ToolSpec]) {
        if case .text(let format) = style { parser = ToolCallParser(format: format, tools: tools) }
    }

    /// What a text delta amounts to: visible text, calls, rejected calls, reasoning.
    mutating func feed(_ delta: String) -> [ToolCallParser.Event] {
        parser?.feed(delta) ?? [.text(delta)]
    }

    /// What was held back, at the end of the turn.
    mutating func finish() -> [ToolCallParser.Event] {
        parser?.finish() ?? []
    }
}
