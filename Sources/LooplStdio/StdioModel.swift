import Foundation
import Loopl
import Synchronization

/// A model served by a worker process that speaks Loopl's stdio protocol (docs/stdio-protocol.md).
///
/// The worker starts with ``start(_:)`` and is restarted by the next request after it dies or
/// breaks the protocol. Requests are admitted by a ``RequestQueue``: up to ``parallel`` are in
/// flight at once, the rest wait in arrival order. Every fault is a ``LooplError`` naming what
/// went wrong, with the worker's exit status and last stderr lines. The worker never outlives
/// the host.
public final class StdioModel: EmbeddingModel {
    /// How to run the worker.
    public struct Configuration: Sendable, Hashable {
        /// The worker's command line; a bare name is looked up on PATH.
        public var command: [String]
        /// How long the worker may take to answer `initialize`; default 30 s.
        public var initializeTimeout: Duration
        /// The longest silence allowed while a request runs; default 60 s.
        public var idleTimeout: Duration
        /// How long a cancelled request may take to be answered before the worker is killed; default 10 s.
        public var cancellationGrace: Duration
        /// Set in the worker's environment (overriding what it inherits).
        public var environment: [String: String]?
        /// Host variables the worker inherits beyond ``ChildEnvironment/basic``.
        public var inheritEnv: [String] = []
        /// Whether the worker inherits the host's whole environment: only for Loopl's own
        /// `loopl worker`; a worker the config names is a third party and gets the minimal one.
        public var inheritsHostEnvironment = false
        /// The most requests in flight at once; the worker's `concurrentRequests` lowers it. Default 4.
        public var parallel: Int
        /// The most requests waiting for a place; one more fails with `busy` at once. Default 64.
        public var maxQueue: Int

        public init(command: [String], initializeTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
                    cancellationGrace: Duration = .seconds(10), environment: [String: String]? = nil,
                    parallel: Int = 4, maxQueue: Int = 64) {
            self.command = command
            self.initializeTimeout = initializeTimeout
            self.idleTimeout = idleTimeout
            self.cancellationGrace = cancellationGrace
            self.environment = environment
            self.parallel = parallel
            self.maxQueue = maxQueue
        }
    }

    public let configuration: Configuration
    /// The markup in the worker's text, which this host lifts before the events leave the model;
    /// nil for a worker that sends its calls and thinking as events.
    public let markup: ToolCallFormat?

    private struct State {
        var worker: WorkerDispatcher?
        /// The restart in progress, which every request that needs a worker waits for.
        var starting: Task<WorkerDispatcher, any Error>?
        var info: WorkerInfo
        var closed = false
        var nextId = 1
    }

    private let state: Mutex<State>
    private let queue: RequestQueue

    private init(configuration: Configuration, worker: WorkerDispatcher) {
        self.configuration = configuration
        self.markup = worker.info.markup
        self.state = Mutex(State(worker: worker, info: worker.info))
        self.queue = RequestQueue(parallel: Self.parallel(configuration, worker.info), maxQueue: configuration.maxQueue)
    }

    /// Starts the worker and completes the handshake.
    public static func start(_ configuration: Configuration) async throws -> StdioModel {
        let (connection, info) = try await connect(configuration)
        return StdioModel(configuration: configuration,
                          worker: WorkerDispatcher(connection: connection, info: info, idleTimeout: configuration.idleTimeout))
    }

    /// What the worker said about itself when it last started.
    public var info: WorkerInfo { state.withLock { $0.info } }

    /// The worker's process id, while one runs.
    public var workerPID: Int32? { state.withLock { $0.worker?.connection.child.pid } }

    /// How many requests are in flight at once: the configured `parallel`, at most the worker's
    /// `concurrentRequests` (1 for a version 1 worker).
    public var parallel: Int { queue.parallel }

    public var contextSize: Int { get async throws { state.withLock { $0.info.contextMax } } }

    public func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error> {
        // The worker's events wait for the consumer here, bounded: ``run`` takes no more from
        // the worker while the pipe is full.
        ModelEventPipe.stream { pipe in
            let events = LiftingContinuation(pipe, format: self.markup, tools: tools)
            try await self.run(.messages(messages, tools), options: options, into: events, pipe: pipe)
        }
    }

    /// Sends `prompt` as it is written, to a worker that declares `rawPrompt`; any other fails
    /// with `invalid_request`.
    public func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        ModelEventPipe.stream { pipe in
            try await self.run(.prompt(prompt), options: options, into: LiftingContinuation(pipe, format: nil, tools: []), pipe: pipe)
        }
    }

    /// The worker's `embed` (protocol version 3), for a worker that declares `embeddings`; any
    /// other fails with ``LooplError/cannotEmbed(_:)``.
    public func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        try await queue.acquire()
        defer { queue.release() }
        let worker = try await liveWorker()
        guard worker.info.embeddings else {
            throw LooplError.cannotEmbed("the worker (\(worker.connection.commandText)) does not declare the embeddings capability of stdio protocol version 3.")
        }
        let params: JSONValue = ["inputs": .array(inputs.map(JSONValue.string)), "truncate": .bool(truncate)]
        let (id, inbox) = try await send("embed", params, to: worker)
        defer { worker.unregister(id) }
        while true {
            let message: RPCMessage
            do { message = try await inbox.receive(timeout: nil, cancellable: true) } catch is CancellationError {
                await cancel(id, inbox, on: worker)
                throw LooplError(.cancelled, "The request was cancelled.")
            } catch {
                throw ended(worker)
            }
            switch message {
            case .response(_, .success(let value)):
                guard let vectors = value["vectors"]?.arrayValue?.map({ $0.arrayValue?.compactMap { $0.doubleValue.map(Float.init) } }),
                      vectors.count == inputs.count, let tokens = value["tokens"]?.intValue else {
                    throw await broken(worker, violation: "its embed result is not one vector for each of the \(inputs.count) inputs and a token count")
                }
                return Embeddings(vectors: vectors.map { Embeddings.normalised($0 ?? []) }, tokens: tokens)
            case .response(_, .failure(let error)):
                throw error.looplError
            default:
                continue
            }
        }
    }

    public func close() async {
        let (worker, starting) = state.withLock { state in
            state.closed = true
            return (state.worker.take(), state.starting)
        }
        starting?.cancel()
        _ = try? await starting?.value
        guard let worker else { return }
        if queue.running == 0 {
            await worker.shutdown(timeout: .seconds(2))
        } else {
            await worker.stop()
        }
    }

    private static func parallel(_ configuration: Configuration, _ info: WorkerInfo) -> Int {
        max(1, min(configuration.parallel, info.concurrentRequests))
    }

    // MARK: - One request

    /// What a `generate` request continues: a conversation, or a raw prompt.
    private enum Input {
        case messages([Message], [ToolSpec])
        case prompt(String)

        func params(_ options: GenerationOptions, for worker: WorkerDispatcher) throws -> JSONValue {
            switch self {
            case .messages(let messages, let tools):
                return ["messages": .array(messages.map(\.templateValue)), "tools": .array(tools.map(\.openAIValue)),
                        "options": try JSONValue(encoding: options)]
            case .prompt(let prompt):
                guard worker.info.rawPrompt else { throw LooplError.messagesOnly("The worker (\(worker.connection.commandText))") }
                return ["prompt": .string(prompt), "options": try JSONValue(encoding: options)]
            }
        }
    }

    private func run(_ input: Input, options: GenerationOptions, into continuation: LiftingContinuation,
                     pipe: ModelEventPipe) async throws {
        try await queue.acquire()
        defer { queue.release() }
        let worker = try await liveWorker()
        let params = try input.params(options, for: worker)
        let (id, inbox) = try await send("generate", params, to: worker)
        defer { worker.unregister(id) }
        var finalMetrics: Metrics?
        while true {
            let message: RPCMessage
            await pipe.waitForRoom()
            do {
                message = try await inbox.receive(timeout: nil, cancellable: true)
            } catch is CancellationError {
                await cancel(id, inbox, on: worker)
                throw LooplError(.cancelled, "The request was cancelled.")
            } catch {
                throw ended(worker)
            }
            switch message {
            case .notification(_, let params):
                let event: ModelEvent
                do { event = try ModelEvent(wireParams: params) } catch {
                    throw await broken(worker, (error as? LooplError)?.message ?? "\(error)")
                }
                if case .toolCall = event, markup != nil {
                    throw await broken(worker, violation: "it sent a toolCall event but declared nativeToolCalls false")
                }
                if case .metrics(let metrics) = event, metrics.finished {
                    finalMetrics = metrics
                } else {
                    continuation.yield(event)
                }
            case .response(_, .success(let value)):
                var metrics = finalMetrics ?? Metrics()
                if let wire = value["metrics"], !wire.isNull {
                    do { metrics = try wire.decode(Metrics.self) } catch {
                        throw await broken(worker, error.message)
                    }
                }
                metrics.finished = true
                if metrics.stopReason == nil { metrics.stopReason = .endTurn }
                continuation.yield(.metrics(metrics))
                return
            case .response(_, .failure(let error)):
                throw error.looplError
            case .request:
                continue
            }
        }
    }

    /// Sends a request of `method` with a new id, registered for its answers.
    private func send(_ method: String, _ params: JSONValue, to worker: WorkerDispatcher) async throws -> (JSONValue, Mailbox) {
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return JSONValue.integer(state.nextId)
        }
        guard let inbox = worker.register(id) else { throw lostBeforeSending(worker) }
        do { try worker.connection.send(.request(id: id, method: method, params: params)) } catch let error as LooplError {
            worker.unregister(id)
            // A worker stopped for a fault (a violation seen since the request was registered)
            // no longer reads: the fault, not the broken pipe, is what this request reports.
            let lost = error.markingEngineLoss()
            await worker.fail(lost)
            throw worker.fault ?? lost
        }
        return (id, inbox)
    }

    /// Tells the worker to stop request `id` and waits for its answer; a worker that does not
    /// answer within the grace period is stopped, and the other requests on it fail.
    private func cancel(_ id: JSONValue, _ inbox: Mailbox, on worker: WorkerDispatcher) async {
        let connection = worker.connection
        guard (try? connection.send(.notification(method: "$/cancelRequest", params: ["id": id]))) != nil else {
            await worker.fail(LooplError(.processFailed, "Cannot write to the worker (\(connection.commandText)): it stopped reading its input.\(connection.details)",
                                         engineLoss: .restarting))
            return
        }
        let deadline = ContinuousClock.now + configuration.cancellationGrace
        while true {
            do {
                let message = try await inbox.receive(timeout: max(deadline - ContinuousClock.now, .zero), cancellable: false)
                if case .response = message { return }
            } catch is MailboxTimeout {
                await worker.fail(LooplError(.timedOut, "The worker (\(connection.commandText)) did not answer the cancellation of request \(id.jsonText()) within \(configuration.cancellationGrace.seconds) s; it was stopped.\(connection.details)",
                                             engineLoss: .restarting))
                return
            } catch {
                return
            }
        }
    }

    /// A protocol violation in a request: it fails every request on the worker, which is stopped.
    private func broken(_ worker: WorkerDispatcher, _ message: String) async -> LooplError {
        let error = LooplError(.protocolViolation, "The worker (\(worker.connection.commandText)) broke the protocol: \(message)")
        await worker.fail(error)
        return worker.fault ?? error
    }

    private func broken(_ worker: WorkerDispatcher, violation what: String) async -> LooplError {
        let error = Self.violation(worker.connection, what)
        await worker.fail(error)
        return worker.fault ?? error
    }

    /// Why a request's mailbox ended: the model was closed, or the fault that ended the worker.
    private func ended(_ worker: WorkerDispatcher) -> LooplError {
        if state.withLock({ $0.closed }) { return LooplError(.closed, "The stdio model was closed while a request ran.") }
        return worker.fault ?? LooplError(.closed, "The worker (\(worker.connection.commandText)) was stopped.")
    }

    /// The worker ended between its choice and the request's sending: the request never reached
    /// it, so the loss is one to retry. A fault it committed while idle is this request's to report.
    private func lostBeforeSending(_ worker: WorkerDispatcher) -> LooplError {
        if state.withLock({ $0.closed }) { return LooplError(.closed, "The stdio model was closed while a request ran.") }
        if let fault = worker.takeUndeliveredFault() { return fault }
        let why = worker.fault.map { ": \($0.message)" } ?? "."
        return LooplError(.processFailed, "The worker (\(worker.connection.commandText)) was lost before the request was sent\(why)",
                          engineLoss: .restarting)
    }

    // MARK: - The worker's life

    /// The running worker; a new one when it died, shared by every request that needs it. A
    /// fault the worker committed while no request ran is reported here, once.
    private func liveWorker() async throws -> WorkerDispatcher {
        enum Next { case use(WorkerDispatcher), report(LooplError, WorkerDispatcher), wait(Task<WorkerDispatcher, any Error>, stale: WorkerDispatcher?) }
        let next = try state.withLock { state throws(LooplError) -> Next in
            if state.closed { throw LooplError(.closed, "The stdio model was used after close().") }
            var stale: WorkerDispatcher?
            if let worker = state.worker {
                if let fault = worker.takeUndeliveredFault() {
                    state.worker = nil
                    return .report(fault, worker)
                }
                if worker.isUsable { return .use(worker) }
                state.worker = nil
                stale = worker
            }
            if let starting = state.starting { return .wait(starting, stale: stale) }
            let starting = Task { try await self.restart() }
            state.starting = starting
            return .wait(starting, stale: stale)
        }
        switch next {
        case .use(let worker):
            return worker
        case .report(let fault, let worker):
            await worker.stop()
            throw fault
        case .wait(let starting, let stale):
            await stale?.stop()
            do { return try await starting.value } catch {
                if state.withLock({ $0.closed }) { throw LooplError(.closed, "The stdio model was closed while its worker restarted.") }
                throw error
            }
        }
    }

    /// Starts a new worker, with the tool-call markup the first one had.
    private func restart() async throws -> WorkerDispatcher {
        do {
            let (connection, info) = try await Self.connect(configuration)
            guard info.markup == markup else {
                await connection.stop()
                throw LooplError(.protocolViolation, "The worker (\(connection.commandText)) restarted with other tool-call markup (\(info.markup?.rawValue ?? "none: native calls")) than it started with (\(markup?.rawValue ?? "none: native calls")).")
            }
            let worker = WorkerDispatcher(connection: connection, info: info, idleTimeout: configuration.idleTimeout)
            let stillOpen = state.withLock { state in
                state.starting = nil
                guard !state.closed else { return false }
                state.worker = worker
                state.info = info
                return true
            }
            guard stillOpen else {
                await worker.stop()
                throw LooplError(.closed, "The stdio model was closed while its worker restarted.")
            }
            queue.setParallel(Self.parallel(configuration, info))
            return worker
        } catch {
            state.withLock { $0.starting = nil }
            throw error
        }
    }

    /// Starts the worker and performs the `initialize` handshake within the initialize timeout,
    /// offering `version`; a worker that refuses a version above 1 is offered version 1.
    static func connect(_ configuration: Configuration, version: Int = StdioProtocol.version) async throws -> (WorkerConnection, WorkerInfo) {
        let environment = configuration.inheritsHostEnvironment
            ? ProcessInfo.processInfo.environment.merging(configuration.environment ?? [:]) { _, new in new }
            : ChildEnvironment.minimal(inherit: configuration.inheritEnv, set: configuration.environment ?? [:])
        let connection = try WorkerConnection(command: configuration.command, environment: environment)
        do {
            let deadline = ContinuousClock.now + configuration.initializeTimeout
            var offer = version
            while true {
                let params: JSONValue = ["protocolVersion": .integer(offer), "options": [:]]
                try connection.send(.request(id: 0, method: "initialize", params: params))
                switch try await initializeAnswer(connection, configuration, deadline: deadline) {
                case .success(let value):
                    return (connection, try WorkerInfo(wireValue: value, offered: offer))
                case .failure where offer > 1:
                    offer = 1
                case .failure(let error):
                    throw LooplError(.processFailed, "The worker (\(connection.commandText)) refused to initialize: \(error.message)\(connection.details)")
                }
            }
        } catch {
            await connection.stop()
            throw error
        }
    }

    private static func initializeAnswer(_ connection: WorkerConnection, _ configuration: Configuration,
                                         deadline: ContinuousClock.Instant) async throws -> Result<JSONValue, RPCError> {
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
            case .response(id: 0, let result):
                return result
            case .notification(method: let method, _) where method != "event":
                continue
            default:
                throw violation(connection, "it sent \(Mailbox.excerpt(message.jsonValue.jsonText())) before answering initialize")
            }
        }
    }

    // MARK: - Errors

    static func violation(_ connection: WorkerConnection, _ what: String) -> LooplError {
        LooplError(.protocolViolation, "The worker (\(connection.commandText)) broke the stdio protocol: \(what). It was stopped; the next request starts it again.\(connection.details)")
    }

    static func failure(_ end: MailboxEnd, _ connection: WorkerConnection, during moment: String) -> LooplError {
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
