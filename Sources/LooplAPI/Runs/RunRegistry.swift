import Loopl
import Synchronization

/// The runs under way: each run's cancel action by run id, and the agent of each busy session.
final class RunRegistry: Sendable {
    private struct Live {
        var cancels: [String: @Sendable () -> Void] = [:]
        var agents: [String: Agent] = [:]
    }

    private let live = Mutex(Live())

    /// The agent running the session `id` now, nil when it is idle.
    func agent(forSession id: String) -> Agent? {
        live.withLock { $0.agents[id] }
    }

    /// Records the run `run` of session `session` on `agent`; false when the session is already
    /// running (its agent is kept).
    func begin(run: String, session: String, agent: Agent, cancel: @escaping @Sendable () -> Void) -> Bool {
        live.withLock { live in
            guard live.agents[session] == nil else { return false }
            live.agents[session] = agent
            live.cancels[run] = cancel
            return true
        }
    }

    /// Forgets the run `run` of session `session`.
    func end(run: String, session: String) {
        live.withLock { live in
            live.cancels[run] = nil
            live.agents[session] = nil
        }
    }

    /// Whether the run `run` is under way.
    func isRunning(_ run: String) -> Bool {
        live.withLock { $0.cancels[run] != nil }
    }

    /// Cancels the run `run`; false when no such run is under way.
    func cancel(_ run: String) -> Bool {
        guard let action = live.withLock({ $0.cancels[run] }) else { return false }
        action()
        return true
    }
}

/// The task of one run, cancellable before it is set: a cancel that comes first cancels it on arrival.
final class RunHandle: Sendable {
    private let state = Mutex<(task: Task<Void, any Error>?, cancelled: Bool)>((nil, false))

    func set(_ task: Task<Void, any Error>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }?.cancel()
    }
}
