import Loopl
import Synchronization

/// The worker that the checks of a ``WorkerCheck`` share, started on demand.
actor WorkerCheckSession {
    private let check: WorkerCheck
    private var current: (WorkerConnection, WorkerInfo)?
    private nonisolated let ids = IdCounter()

    init(check: WorkerCheck) { self.check = check }

    nonisolated func nextId() -> Int { ids.next() }

    /// The running, initialized worker; starts one when there is none.
    func connection() async throws -> (WorkerConnection, WorkerInfo) {
        if let current, current.0.isUsable { return current }
        await reset()
        let started = try await StdioModel.connect(StdioModel.Configuration(
            command: check.command, initializeTimeout: check.initializeTimeout, idleTimeout: check.idleTimeout))
        current = started
        return started
    }

    /// Stops the worker, if any.
    func reset() async {
        if let (connection, _) = current.take() { await connection.stop(grace: .seconds(1)) }
    }

    static func params(_ options: GenerationOptions, prompt: String = "Say hello in one short sentence.") throws -> JSONValue {
        ["messages": .array([Message.user(prompt).templateValue]), "tools": [], "options": try JSONValue(encoding: options)]
    }

    /// Sends a generate request without waiting for it; returns its id.
    nonisolated func start(_ connection: WorkerConnection, options: GenerationOptions,
                           prompt: String = "Say hello in one short sentence.") throws -> Int {
        let id = nextId()
        try connection.send(.request(id: .integer(id), method: "generate", params: Self.params(options, prompt: prompt)))
        return id
    }

    /// What arrived for one of several requests in flight.
    enum Arrival {
        case event(Int, ModelEvent)
        case answer(Int, Result<JSONValue, RPCError>)
    }

    /// The next event or answer for one of `ids`, checking that it is well formed and belongs
    /// to one of them; other notifications are skipped.
    nonisolated func next(_ connection: WorkerConnection, among ids: Set<Int>, timeout: Duration? = nil) async throws -> Arrival {
        while true {
            let message = try await receive(connection, timeout: timeout ?? check.idleTimeout)
            switch message {
            case .notification(method: "event", let params):
                guard let id = params["id"]?.intValue, ids.contains(id) else {
                    throw WorkerCheck.Failure(reason: "an event carries id \(params["id"]?.jsonText() ?? "(none)"), not one of \(ids.sorted())")
                }
                return .event(id, try ModelEvent(wireParams: params))
            case .notification:
                continue
            case .response(.integer(let id), let result) where ids.contains(id):
                return .answer(id, result)
            default:
                throw WorkerCheck.Failure(reason: "unexpected \(Mailbox.excerpt(message.jsonValue.jsonText())) during requests \(ids.sorted())")
            }
        }
    }

    /// The next message, with faults as check failures.
    nonisolated func receive(_ connection: WorkerConnection, timeout: Duration) async throws -> RPCMessage {
        do {
            return try await connection.mailbox.receive(timeout: timeout, cancellable: true)
        } catch is MailboxTimeout {
            throw WorkerCheck.Failure(reason: "the worker sent nothing for \(timeout)")
        } catch let end as MailboxEnd {
            throw WorkerCheck.Failure(reason: check.describe(end, connection))
        }
    }

    /// The response to `id`, skipping notifications that are not events.
    nonisolated func response(_ connection: WorkerConnection, id: Int) async throws -> Result<JSONValue, RPCError> {
        while true {
            let message = try await receive(connection, timeout: check.idleTimeout)
            switch message {
            case .response(.integer(id), let result): return result
            case .notification(let method, _) where method != "event": continue
            default: throw WorkerCheck.Failure(reason: "expected the response to request \(id), got \(Mailbox.excerpt(message.jsonValue.jsonText()))")
            }
        }
    }

    /// Runs one generate request to its response, checking that every event is well formed and its own.
    nonisolated func generate(_ connection: WorkerConnection, options: GenerationOptions) async throws
        -> ([ModelEvent], Result<JSONValue, RPCError>) {
        let id = nextId()
        try connection.send(.request(id: .integer(id), method: "generate", params: Self.params(options)))
        var events: [ModelEvent] = []
        while true {
            let message = try await receive(connection, timeout: check.idleTimeout)
            switch message {
            case .notification(method: "event", let params):
                guard params["id"] == .integer(id) else {
                    throw WorkerCheck.Failure(reason: "an event carries id \(params["id"]?.jsonText() ?? "(none)"), not \(id)")
                }
                events.append(try ModelEvent(wireParams: params))
            case .notification:
                continue
            case .response(.integer(id), let result):
                return (events, result)
            default:
                throw WorkerCheck.Failure(reason: "unexpected \(Mailbox.excerpt(message.jsonValue.jsonText())) during request \(id)")
            }
        }
    }
}

/// Request ids for the checks.
final class IdCounter: Sendable {
    private let value = Mutex(100)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
