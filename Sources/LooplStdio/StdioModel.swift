import Loopl
import Synchronization

/// A model served by a worker process that speaks Loopl's stdio protocol (docs/stdio-protocol.md).
///
/// The worker starts with ``start(_:)`` and is restarted by the next request after it dies or
/// breaks the protocol. Every fault is a ``LooplError`` naming what went wrong, with the worker's
/// exit status and last stderr lines. The worker never outlives the host.
public final class StdioModel: Model {
    /// How to run the worker.
    public struct Configuration: Sendable, Hashable {
        /// The worker's command line; a bare name is looked up on PATH.
        public var command: [String]
        /// How long the worker may take to answer `initialize`; default 30 s.
        public var initializeTimeout: Duration
        /// The longest silence allowed while a request runs; default 60 s.
        public var idleTimeout: Duration
        /// How long a cancelled request may take to be answered before the worker is killed; default 10 s.
        public var cancelGrace: Duration
        /// The worker's environment; nil (the default) inherits the host's.
        public var environment: [String: String]?

        public init(command: [String], initializeTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
                    cancelGrace: Duration = .seconds(10), environment: [String: String]? = nil) {
            self.command = command
            self.initializeTimeout = initializeTimeout
            self.idleTimeout = idleTimeout
            self.cancelGrace = cancelGrace
            self.environment = environment
        }
    }

    public let configuration: Configuration
    public let toolCallStyle: ToolCallStyle

    private struct State {
        var connection: WorkerConnection?
        var info: WorkerInfo
        var closed = false
        var nextId = 1
        var lastFinishedId: Int?
    }

    private let state: Mutex<State>
    private let gate = RequestQueue()

    private init(configuration: Configuration, connection: WorkerConnection, info: WorkerInfo) {
        self.configuration = configuration
        self.toolCallStyle = info.toolCallStyle
        self.state = Mutex(State(connection: connection, info: info))
    }

    /// Starts the worker and completes the handshake.
    public static func start(_ configuration: Configuration) async throws -> StdioModel {
        let (connection, info) = try await connect(configuration)
        return StdioModel(configuration: configuration, connection: connection, info: info)
    }

    /// What the worker said about itself when it last started.
    public var info: WorkerInfo { state.withLock { $0.info } }

    /// The worker's process id, while one runs.
    public var workerPID: Int32? { state.withLock { $0.connection?.child.pid } }

    public var contextSize: Int { get async throws { state.withLock { $0.info.contextMax } } }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error> {
        .generating { continuation in
            try await self.run(messages: messages, tools: tools, options: options, into: continuation)
        }
    }

    public func close() async {
        let connection = state.withLock { state -> WorkerConnection? in
            state.closed = true
            return state.connection.take()
        }
        guard let connection else { return }
        if gate.tryAcquire() {
            await connection.shutdown(timeout: .seconds(2))
            gate.release()
        } else {
            await connection.stop()
        }
    }

    // MARK: - One request

    private func run(messages: [Message], tools: [ToolSpec], options: GenerationOptions,
                     into continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation) async throws {
        try await gate.acquire()
        defer { gate.release() }
        let connection = try await liveConnection()
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        let params: JSONValue = ["messages": .array(messages.map(\.templateValue)),
                                 "tools": .array(tools.map(\.openAIValue)),
                                 "options": try JSONValue(encoding: options)]
        do { try connection.send(.request(id: .integer(id), method: "generate", params: params)) } catch let error as LooplError {
            await discard(connection)
            throw error.markingEngineLoss()
        }
        var finalMetrics: Metrics?
        while true {
            let message: RPCMessage
            do {
                message = try await connection.mailbox.receive(timeout: configuration.idleTimeout, cancellable: true)
            } catch is CancellationError {
                await cancel(id, on: connection)
                throw LooplError(.cancelled, "The request was cancelled.")
            } catch is MailboxTimeout {
                await discard(connection)
                throw LooplError(.timedOut, "The worker (\(connection.commandText)) sent nothing for \(configuration.idleTimeout.seconds) s while generating (idleTimeoutSeconds); it was stopped.\(connection.details)",
                                 engineLoss: .restarting)
            } catch let end as MailboxEnd {
                await discard(connection)
                let error = failure(end, connection, during: "mid-stream")
                guard case .exited = end, error.code == .processFailed else { throw error }
                throw error.markingEngineLoss()
            }
            switch message {
            case .notification(method: "event", let params):
                guard params["id"] == .integer(id) else {
                    await discard(connection)
                    throw strayEvent(params, current: id, connection)
                }
                let event: ModelEvent
                do { event = try ModelEvent(wireParams: params) } catch let error as LooplError {
                    await discard(connection)
                    throw LooplError(.protocolViolation, "The worker (\(connection.commandText)) broke the protocol: \(error.message)")
                }
                if case .toolCall = event, case .text = toolCallStyle {
                    await discard(connection)
                    throw violation(connection, "it sent a toolCall event but declared nativeToolCalls false")
                }
                if case .metrics(let metrics) = event, metrics.finished {
                    finalMetrics = metrics
                } else {
                    continuation.yield(event)
                }
            case .notification:
                continue
            case .response(let responseId, let result):
                guard responseId == .integer(id) else {
                    await discard(connection)
                    throw violation(connection, "it answered request \(responseId.jsonText()), which is not running (a response to nothing)")
                }
                state.withLock { $0.lastFinishedId = id }
                switch result {
                case .success(let value):
                    var metrics = finalMetrics ?? Metrics()
                    if let wire = value["metrics"], !wire.isNull {
                        do { metrics = try wire.decode(Metrics.self) } catch {
                            await discard(connection)
                            throw LooplError(.protocolViolation, "The worker (\(connection.commandText)) broke the protocol: \(error.message)")
                        }
                    }
                    metrics.finished = true
                    if metrics.stopReason == nil { metrics.stopReason = .endTurn }
                    continuation.yield(.metrics(metrics))
                    return
                case .failure(let error):
                    throw error.looplError
                }
            case .request(_, let method, _):
                await discard(connection)
                throw violation(connection, "it sent a request (\(method)); workers only send responses and event notifications")
            }
        }
    }

    /// Tells the worker to stop request `id` and waits for its answer; a worker that does not
    /// answer within the grace period is stopped.
    private func cancel(_ id: Int, on connection: WorkerConnection) async {
        state.withLock { $0.lastFinishedId = id }
        guard (try? connection.send(.notification(method: "$/cancelRequest", params: ["id": .integer(id)]))) != nil else {
            await discard(connection)
            return
        }
        let deadline = ContinuousClock.now + configuration.cancelGrace
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero, let message = try? await connection.mailbox.receive(timeout: left, cancellable: false) else {
                await discard(connection)
                return
            }
            switch message {
            case .response(id: .integer(id), _): return
            case .notification(method: "event", let params) where params["id"] == .integer(id): continue
            case .notification(method: let method, _) where method != "event": continue
            default:
                await discard(connection)
                return
            }
        }
    }

    // MARK: - The worker's life

    /// The running worker, restarted when it died; reports a fault it committed while idle.
    private func liveConnection() async throws -> WorkerConnection {
        let (current, closed) = state.withLock { ($0.connection, $0.closed) }
        if closed { throw LooplError(.closed, "The stdio model was used after close().") }
        if let current {
            while let stray = current.mailbox.takePending() {
                switch stray {
                case .notification(method: "event", let params):
                    await discard(current)
                    throw strayEvent(params, current: nil, current)
                case .response(let responseId, _):
                    await discard(current)
                    throw violation(current, "it answered request \(responseId.jsonText()), which was not running (a response to nothing)")
                case .request(_, let method, _):
                    await discard(current)
                    throw violation(current, "it sent a request (\(method)); workers only send responses and event notifications")
                case .notification:
                    continue
                }
            }
            if case .violation? = current.mailbox.end {
                await discard(current)
                throw failure(current.mailbox.end ?? .stopped, current, during: "between requests")
            }
            if current.isUsable { return current }
            await discard(current)
        }
        let (connection, info) = try await Self.connect(configuration)
        guard info.toolCallStyle == toolCallStyle else {
            await connection.stop()
            throw LooplError(.protocolViolation, "The worker (\(connection.commandText)) restarted with another tool-call style (\(info.toolCallStyle)) than it started with (\(toolCallStyle)).")
        }
        let stillOpen = state.withLock { state in
            guard !state.closed else { return false }
            state.connection = connection
            state.info = info
            return true
        }
        guard stillOpen else {
            await connection.stop()
            throw LooplError(.closed, "The stdio model was closed while its worker restarted.")
        }
        return connection
    }

    /// Stops a worker that failed and forgets it.
    private func discard(_ connection: WorkerConnection) async {
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
        await connection.stop()
    }

    /// Starts the worker and performs the `initialize` handshake within the initialize timeout.
    static func connect(_ configuration: Configuration) async throws -> (WorkerConnection, WorkerInfo) {
        let connection = try WorkerConnection(command: configuration.command, environment: configuration.environment)
        do {
            let params: JSONValue = ["protocolVersion": .integer(StdioProtocol.version), "options": [:]]
            try connection.send(.request(id: 0, method: "initialize", params: params))
            let deadline = ContinuousClock.now + configuration.initializeTimeout
            while true {
                let message: RPCMessage
                do {
                    message = try await connection.mailbox.receive(timeout: deadline - ContinuousClock.now, cancellable: true)
                } catch is MailboxTimeout {
                    throw LooplError(.timedOut, "The worker (\(connection.commandText)) did not answer initialize within \(configuration.initializeTimeout.seconds) s (initializeTimeoutSeconds); it was stopped.\(connection.details)")
                } catch let end as MailboxEnd {
                    throw failure(end, connection, during: "at start, before answering initialize")
                }
                switch message {
                case .response(id: 0, .success(let value)):
                    return (connection, try WorkerInfo(wireValue: value))
                case .response(id: 0, .failure(let error)):
                    throw LooplError(.processFailed, "The worker (\(connection.commandText)) refused to initialize: \(error.message)\(connection.details)")
                case .notification(method: let method, _) where method != "event":
                    continue
                default:
                    throw violation(connection, "it sent \(Mailbox.excerpt(message.jsonValue.jsonText())) before answering initialize")
                }
            }
        } catch {
            await connection.stop()
            throw error
        }
    }

    // MARK: - Errors

    private func strayEvent(_ params: JSONValue, current: Int?, _ connection: WorkerConnection) -> LooplError {
        let last = state.withLock { $0.lastFinishedId }
        if let eventId = params["id"]?.intValue, eventId == last {
            return violation(connection, "it sent an event for request \(eventId) after that request's result (an event after the result)")
        }
        let running = current.map { "request \($0) is running" } ?? "no request is running"
        return violation(connection, "it sent an event for an unknown id \(params["id"]?.jsonText() ?? "(none)") while \(running)")
    }

    private func violation(_ connection: WorkerConnection, _ what: String) -> LooplError {
        Self.violation(connection, what)
    }

    private static func violation(_ connection: WorkerConnection, _ what: String) -> LooplError {
        LooplError(.protocolViolation, "The worker (\(connection.commandText)) broke the stdio protocol: \(what). It was stopped; the next request starts it again.\(connection.details)")
    }

    private func failure(_ end: MailboxEnd, _ connection: WorkerConnection, during moment: String) -> LooplError {
        if state.withLock({ $0.closed }) { return LooplError(.closed, "The stdio model was closed while a request ran.") }
        return Self.failure(end, connection, during: moment)
    }

    private static func failure(_ end: MailboxEnd, _ connection: WorkerConnection, during moment: String) -> LooplError {
        switch end {
        case .exited(let status):
            let how = status.map { " with status \($0)" } ?? ""
            return LooplError(.processFailed, "The worker (\(connection.commandText)) exited\(how) \(moment).\(connection.details.replacingExitStatus)")
        case .violation(let what):
            return violation(connection, what)
        case .stopped:
            return LooplError(.closed, "The worker (\(connection.commandText)) was stopped.")
        }
    }
}

private extension String {
    /// The details without a repeated exit status.
    var replacingExitStatus: String {
        guard hasPrefix(" Exit status"), let end = firstIndex(of: ".") else { return self }
        return String(self[index(after: end)...])
    }
}
