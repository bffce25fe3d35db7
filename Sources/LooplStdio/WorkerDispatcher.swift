import Loopl
import Synchronization

/// Routes one worker's messages to the requests in flight on it, by id, and ends them all when
/// the worker is lost: it exits, breaks the protocol, or stays silent past the idle timeout while
/// a request runs. Each request reads its own ``Mailbox``; the fault that ended the worker is
/// ``fault``.
final class WorkerDispatcher: Sendable {
    let connection: WorkerConnection
    let info: WorkerInfo
    private let idleTimeout: Duration

    private struct State {
        var inFlight: [JSONValue: Mailbox] = [:]
        /// The ids this worker was sent, for telling "after its result" from "unknown".
        var firstId: Int?
        var lastId: Int?
        var lastHeard = ContinuousClock.now
        var ended = false
        var fault: LooplError?
        /// Whether a request in flight took the fault; if not, the next request reports it.
        var faultDelivered = false
        var watchdog: Task<Void, Never>?
    }

    private let state = Mutex(State())

    init(connection: WorkerConnection, info: WorkerInfo, idleTimeout: Duration) {
        self.connection = connection
        self.info = info
        self.idleTimeout = idleTimeout
        Task.detached { await self.route() }
        let watchdog = Task.detached { await self.watch() }
        state.withLock { $0.watchdog = watchdog }
    }

    /// True while the worker runs and nothing has ended it.
    var isUsable: Bool { connection.isUsable && state.withLock { !$0.ended } }

    /// What ended the worker, if something did.
    var fault: LooplError? { state.withLock { $0.fault } }

    /// The fault that ended the worker while no request ran, once: the next request reports it.
    func takeUndeliveredFault() -> LooplError? {
        state.withLock { state in
            guard let fault = state.fault, !state.faultDelivered else { return nil }
            state.faultDelivered = true
            return fault
        }
    }

    /// The mailbox that request `id` reads its events and its response from, or nil when the
    /// worker has ended. Silence is counted from now when no other request runs.
    func register(_ id: JSONValue) -> Mailbox? {
        state.withLock { state in
            guard !state.ended else { return nil }
            if state.inFlight.isEmpty { state.lastHeard = .now }
            if let number = id.intValue {
                state.firstId = min(state.firstId ?? number, number)
                state.lastId = max(state.lastId ?? number, number)
            }
            let inbox = Mailbox()
            state.inFlight[id] = inbox
            return inbox
        }
    }

    /// Forgets request `id` (it was answered, or given up).
    func unregister(_ id: JSONValue) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
    }

    /// Ends the worker with `fault`: every request in flight gets it, the worker is stopped.
    /// The first fault wins.
    func fail(_ fault: LooplError) async {
        end(fault)
        await connection.stop()
    }

    /// Stops the worker with no fault of its own (the host closed it).
    func stop() async {
        end(nil)
        await connection.stop()
    }

    /// Asks for a clean exit (shutdown, then end of input), then stops the worker.
    func shutdown(timeout: Duration) async {
        let answer = isUsable ? register("shutdown") : nil
        if let answer, (try? connection.send(.request(id: "shutdown", method: "shutdown", params: .null))) != nil {
            _ = try? await answer.receive(timeout: timeout, cancellable: false)
        }
        end(nil)
        connection.child.closeInput()
        _ = await connection.child.waitForExit(timeout: timeout)
        await connection.stop()
    }

    // MARK: - Routing

    private func route() async {
        while true {
            let message: RPCMessage
            do {
                message = try await connection.mailbox.receive(timeout: nil, cancellable: false)
            } catch let end as MailboxEnd {
                ended(end)
                return
            } catch {
                ended(.stopped)
                return
            }
            let problem = state.withLock { state -> String? in
                state.lastHeard = .now
                switch message {
                case .notification(method: "event", let params):
                    guard let id = params["id"], let inbox = state.inFlight[id] else { return Self.stray(params["id"], state) }
                    guard inbox.put(message, bytes: message.line.count) else {
                        return "it sent more than \(inbox.limit / 1024 / 1024) MiB of events for request \(id.jsonText()) that the host has not read yet"
                    }
                case .notification:
                    break
                case .response(let id, _):
                    guard let inbox = state.inFlight.removeValue(forKey: id) else {
                        return "it answered request \(id.jsonText()), which is not running (a response to nothing)"
                    }
                    inbox.put(message)
                case .request(_, let method, _):
                    return "it sent a request (\(method)); workers only send responses and event notifications"
                }
                return nil
            }
            if let problem {
                await fail(StdioModel.violation(connection, problem))
                return
            }
        }
    }

    private static func stray(_ id: JSONValue?, _ state: State) -> String {
        if let number = id?.intValue, let first = state.firstId, let last = state.lastId, (first...last).contains(number) {
            return "it sent an event for request \(number) after that request's result (an event after the result)"
        }
        let running = state.inFlight.keys.compactMap(\.intValue).sorted()
        let now = running.isEmpty ? "no request is running" : "request\(running.count > 1 ? "s" : "") \(running.map(String.init).joined(separator: ", ")) \(running.count > 1 ? "are" : "is") running"
        return "it sent an event for an unknown id \(id?.jsonText() ?? "(none)") while \(now)"
    }

    /// The worker's output ended: its exit fails the requests in flight (an engine loss); a
    /// violation is a fault even while idle, reported by the next request.
    private func ended(_ end: MailboxEnd) {
        switch end {
        case .exited:
            let running = state.withLock { !$0.inFlight.isEmpty }
            self.end(running ? StdioModel.failure(end, connection, during: "mid-stream").markingEngineLoss() : nil)
        case .violation:
            self.end(StdioModel.failure(end, connection, during: "mid-stream"))
        case .stopped:
            self.end(nil)
        }
    }

    private func end(_ fault: LooplError?) {
        let (inboxes, watchdog) = state.withLock { state -> ([Mailbox], Task<Void, Never>?) in
            if state.fault == nil, let fault {
                state.fault = fault
                state.faultDelivered = !state.inFlight.isEmpty
            }
            state.ended = true
            defer { state.inFlight = [:] }
            return (Array(state.inFlight.values), state.watchdog.take())
        }
        watchdog?.cancel()
        for inbox in inboxes { inbox.finish(.stopped) }
    }

    // MARK: - Silence

    /// Fails everything when the worker stays silent past the idle timeout while a request runs.
    private func watch() async {
        while true {
            let (deadline, idle, ended) = state.withLock { state -> (ContinuousClock.Instant, Bool, Bool) in
                (state.lastHeard + idleTimeout, state.inFlight.isEmpty, state.ended)
            }
            if ended { return }
            if !idle, deadline <= .now {
                await fail(LooplError(.timedOut, "The worker (\(connection.commandText)) sent nothing for \(idleTimeout.seconds) s while generating (idleTimeoutSeconds); it was stopped.\(connection.details)",
                                      engineLoss: .restarting))
                return
            }
            // With nothing in flight the clock restarts at the next request: look again a timeout later.
            let wait = idle ? idleTimeout : max(deadline - .now, .milliseconds(10))
            do { try await Task.sleep(for: min(wait, idleTimeout)) } catch { return }
        }
    }
}
