/// What an ``Agent`` run streams.
public enum AgentEvent: Sendable, Hashable {
    /// Iteration `n` (1-based) starts: one model turn and the tools it calls.
    case iterationStarted(Int)
    /// Visible text of the assistant, never tool-call markup.
    case text(String)
    case metrics(Metrics)
    /// The assistant's turn, complete and parsed.
    case assistantMessage(Message)
    case toolStarted(ToolCall)
    case toolFinished(ToolResult)
    /// Something the user should know that does not stop the run.
    case warning(String)
    /// The run is over; always the last event.
    case finished(iterations: Int, reason: FinishReason)
}

/// Why an ``Agent`` run ended.
public enum FinishReason: String, Sendable, Hashable, Codable {
    /// The model answered without calling a tool.
    case answered
    /// The iteration budget ran out.
    case budget
    /// The caller cancelled.
    case cancelled
}
