/// Lifts tool calls out of a `.text` model's streamed text; passes a `.native` model's text through.
///
/// The text streams as it comes: a backend whose prompt opened thinking streams the opening
/// marker first, so the parser is told the prompt did not (`startsInReasoning: false`) rather
/// than holding the start of every turn back until it is decided.
struct CallLifter {
    private var parser: ToolCallParser?

    init(style: ToolCallStyle, tools: [ToolSpec]) {
        guard case .text(let format) = style else { return }
        parser = ToolCallParser(format: format, tools: tools, startsInReasoning: false)
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
