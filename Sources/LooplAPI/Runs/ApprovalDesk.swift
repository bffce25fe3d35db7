import Loopl
import Synchronization

/// The calls of agent runs that wait for a person's decision, by run id and call id: a wait is
/// opened when its run asks (``expect(run:call:)``), answered by
/// `POST /loopl/v1/runs/{id}/approvals/{callId}` (``answer(run:call:with:)``), and denied when no
/// answer comes in time.
final class ApprovalDesk: Sendable {
    private struct Key: Hashable {
        let run: String
        let call: String
    }

    private let waits = Mutex<[Key: Slot]>([:])

    /// Opens the wait for the call `call` of the run `run`, if it is not open yet: an answer that
    /// comes before the run's approver waits is kept for it.
    func expect(run: String, call: String) {
        _ = slot(Key(run: run, call: call))
    }

    /// The approver of the run `run`: it waits for the answer to each call, and denies a call
    /// that waits longer than `timeout`.
    func approver(run: String, timeout: Duration) -> ToolApprover {
        { [self] call in
            let key = Key(run: run, call: call.id)
            let slot = slot(key)
            let timer = Task {
                try await Task.sleep(for: timeout)
                slot.give(.deny)
            }
            let decision = await withTaskCancellationHandler {
                await slot.decision()
            } onCancel: {
                slot.give(.deny)
            }
            timer.cancel()
            waits.withLock { $0[key] = nil }
            return decision
        }
    }

    /// Gives `decision` to the waiting call `call` of the run `run`; false when no such call waits.
    func answer(run: String, call: String, with decision: ApprovalDecision) -> Bool {
        guard let slot = waits.withLock({ $0[Key(run: run, call: call)] }) else { return false }
        return slot.give(decision)
    }

    /// Ends every wait of the run `run`, which is over.
    func close(run: String) {
        let closed = waits.withLock { waits in
            let keys = waits.keys.filter { $0.run == run }
            return keys.compactMap { waits.removeValue(forKey: $0) }
        }
        for slot in closed { slot.give(.deny) }
    }

    private func slot(_ key: Key) -> Slot {
        waits.withLock { waits in
            if let slot = waits[key] { return slot }
            let slot = Slot()
            waits[key] = slot
            return slot
        }
    }

    /// One call's decision, given once, and its waiter.
    private final class Slot: Sendable {
        private let state = Mutex<(decision: ApprovalDecision?, waiter: CheckedContinuation<ApprovalDecision, Never>?)>((nil, nil))

        /// Gives `decision` unless one was given; false when one was.
        @discardableResult
        func give(_ decision: ApprovalDecision) -> Bool {
            let (given, waiter) = state.withLock { state -> (Bool, CheckedContinuation<ApprovalDecision, Never>?) in
                guard state.decision == nil else { return (false, nil) }
                state.decision = decision
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            waiter?.resume(returning: decision)
            return given
        }

        func decision() async -> ApprovalDecision {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> ApprovalDecision? in
                    if let decision = state.decision { return decision }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
