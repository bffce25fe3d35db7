/// What a model streams while it writes one assistant turn.
public enum ModelEvent: Sendable, Hashable {
    /// Visible text, without markup.
    case text(String)
    /// Thinking the model wrote before its answer, without its markup.
    case reasoning(String)
    /// A complete tool call.
    case toolCall(ToolCall)
    /// Counts and speed so far; the last one of a turn has `finished` true.
    case metrics(Metrics)
}
