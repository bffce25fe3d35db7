/// What a person decided about a call that needs approval (``ToolApproval/ask``).
public enum ApprovalDecision: String, Sendable, Hashable, Codable, CaseIterable {
    /// Run this call.
    case once
    /// Run this call, and every later call of the same tool in this run without asking.
    case run
    /// Do not run it: the model reads "The user denied this call." as the call's error result.
    case deny
}

/// Decides on a call that needs approval; it may take as long as a person does. Cancelling the
/// run ends the wait, whether or not the closure returns.
public typealias ToolApprover = @Sendable (ToolCall) async -> ApprovalDecision
