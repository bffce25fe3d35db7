import Synchronization

/// Asks a ``ToolApprover`` for its decision, and stops waiting when the asking task is cancelled.
final class ApprovalWait: Sendable {
    private struct State {
        var waiter: CheckedContinuation<ApprovalDecision?, Never>?
        /// Set once: the decision, or nil inside when the wait was cancelled.
        var answer: ApprovalDecision??
    }

    private let state = Mutex(State())

    private init() {}

    /// `approver`'s decision on `call`, or nil when the task was cancelled before it came.
    static func decision(of approver: @escaping ToolApprover, on call: ToolCall) async -> ApprovalDecision? {
        let wait = ApprovalWait()
        let asking = Task { wait.give(await approver(call)) }
        return await withTaskCancellationHandler {
            await wait.answer()
        } onCancel: {
            // Given first: an approver that ends its wait when cancelled must not answer in its place.
            wait.give(nil)
            asking.cancel()
        }
    }

    private func give(_ decision: ApprovalDecision?) {
        let waiter = state.withLock { state -> CheckedContinuation<ApprovalDecision?, Never>? in
            guard state.answer == nil else { return nil }
            state.answer = .some(decision)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: decision)
    }

    private func answer() async -> ApprovalDecision? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> ApprovalDecision?? in
                if let answer = state.answer { return answer }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
