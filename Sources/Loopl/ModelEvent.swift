/// What a model streams while it writes one assistant turn.
public enum ModelEvent: Sendable, Hashable {
    /// Visible text (for a `.text` tool-call style: the raw text, markup included).
    case text(String)
    /// Thinking the model wrote before its answer, without its markup: from a backend that
    /// separates it itself (a `.native` style, or a backend that parses its own output).
    case reasoning(String)
    /// A complete tool call, from a model whose tool-call style is `.native`.
    case toolCall(ToolCall)
    /// Counts and speed so far; the last one of a turn has `finished` true.
    case metrics(Metrics)
}
