/// What an ``Agent`` run streams.
///
/// Its Codable form is the `loopl run --json` event stream (docs/events.md, schema version 1):
/// one object per event, `{"event": NAME, ...}`.
public enum AgentEvent: Sendable, Hashable {
    /// Iteration `n` (1-based) starts: one model turn and the tools it calls.
    case iterationStarted(Int)
    /// Visible text of the assistant, never tool-call markup.
    case text(String)
    /// A piece of the thinking the assistant writes before its answer, without its markup.
    case reasoning(String)
    /// The model's counts and speed so far; the last one of a turn has `finished` true.
    case metrics(Metrics)
    /// The assistant's turn, complete and parsed.
    case assistantMessage(Message)
    /// A call that needs approval waits for the ``Agent``'s ``ToolApprover``.
    case approvalRequested(ToolCall)
    /// The approver decided on the call `callId`; a denied call finishes without starting.
    case approvalAnswered(callId: String, decision: ApprovalDecision)
    /// A tool the model called starts to run.
    case toolStarted(ToolCall)
    /// A tool finished (or failed: ``ToolResult/isError``); its result goes back to the model.
    case toolFinished(ToolResult)
    /// Something the user should know that does not stop the run.
    case warning(String)
    /// The engine behind the model was lost during iteration `iteration` (`reason` says how); the
    /// turn starts again from the same messages. The text streamed since that iteration started
    /// is withdrawn: the assistant message holds only the retry's text.
    case retrying(iteration: Int, reason: String)
    /// The run is over; always the last event.
    case finished(iterations: Int, reason: FinishReason)
}

/// Why an ``Agent`` run ended.
public enum FinishReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The model answered without calling a tool.
    case answered
    /// The iteration budget ran out.
    case budget
    /// The caller cancelled.
    case cancelled
}

extension AgentEvent: Codable {
    /// The version of the event stream's shape that this build writes (docs/events.md).
    public static let schemaVersion = 1

    private enum CodingKeys: String, CodingKey {
        case event, iteration, text, metrics, message, toolCall, result, iterations, reason, callId, decision
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .event) {
        case "iterationStarted": self = .iterationStarted(try c.decode(Int.self, forKey: .iteration))
        case "text": self = .text(try c.decode(String.self, forKey: .text))
        case "reasoning": self = .reasoning(try c.decode(String.self, forKey: .text))
        case "metrics": self = .metrics(try c.decode(Metrics.self, forKey: .metrics))
        case "assistantMessage": self = .assistantMessage(try c.decode(Message.self, forKey: .message))
        case "approvalRequested": self = .approvalRequested(try c.decode(ToolCall.self, forKey: .toolCall))
        case "approvalAnswered":
            self = .approvalAnswered(callId: try c.decode(String.self, forKey: .callId),
                                     decision: try c.decode(ApprovalDecision.self, forKey: .decision))
        case "toolStarted": self = .toolStarted(try c.decode(ToolCall.self, forKey: .toolCall))
        case "toolFinished": self = .toolFinished(try c.decode(ToolResult.self, forKey: .result))
        case "warning": self = .warning(try c.decode(String.self, forKey: .message))
        case "retrying":
            self = .retrying(iteration: try c.decode(Int.self, forKey: .iteration),
                             reason: try c.decode(String.self, forKey: .reason))
        case "finished":
            self = .finished(iterations: try c.decode(Int.self, forKey: .iterations),
                             reason: try c.decode(FinishReason.self, forKey: .reason))
        case let name:
            throw DecodingError.dataCorruptedError(forKey: .event, in: c, debugDescription:
                "is \"\(name)\", not one of iterationStarted, text, reasoning, metrics, assistantMessage, approvalRequested, approvalAnswered, toolStarted, toolFinished, warning, retrying, finished")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .event)
        switch self {
        case .iterationStarted(let n): try c.encode(n, forKey: .iteration)
        case .text(let text), .reasoning(let text): try c.encode(text, forKey: .text)
        case .metrics(let metrics): try c.encode(metrics, forKey: .metrics)
        case .assistantMessage(let message): try c.encode(message, forKey: .message)
        case .toolStarted(let call), .approvalRequested(let call): try c.encode(call, forKey: .toolCall)
        case .approvalAnswered(let callId, let decision):
            try c.encode(callId, forKey: .callId)
            try c.encode(decision, forKey: .decision)
        case .toolFinished(let result): try c.encode(result, forKey: .result)
        case .warning(let text): try c.encode(text, forKey: .message)
        case .retrying(let iteration, let reason):
            try c.encode(iteration, forKey: .iteration)
            try c.encode(reason, forKey: .reason)
        case .finished(let iterations, let reason):
            try c.encode(iterations, forKey: .iterations)
            try c.encode(reason, forKey: .reason)
        }
    }

    /// The event's name: its `event` key in the Codable form.
    public var name: String {
        switch self {
        case .iterationStarted: "iterationStarted"
        case .text: "text"
        case .reasoning: "reasoning"
        case .metrics: "metrics"
        case .assistantMessage: "assistantMessage"
        case .approvalRequested: "approvalRequested"
        case .approvalAnswered: "approvalAnswered"
        case .toolStarted: "toolStarted"
        case .toolFinished: "toolFinished"
        case .warning: "warning"
        case .retrying: "retrying"
        case .finished: "finished"
        }
    }
}
