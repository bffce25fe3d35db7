import Foundation
import Loopl

/// What Loopl knows about the server it talks to.
struct ServerInfo: Sendable {
    let endpoint: ServerEndpoint
    /// The context size, when the server reports it or the configuration gives it.
    let contextSize: Int?
    /// True for llama-server, which takes its own sampling fields and reports timings.
    let llamaCpp: Bool
}

/// The state behind a ``LlamaServerModel``: the child, the server's address, and one request at a time.
actor ServerSession {
    let configuration: LlamaServerModel.Configuration
    private var child: ServerChild?
    private var info: ServerInfo?
    private var starting: Task<ServerInfo, any Error>?
    private var closed = false
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(configuration: LlamaServerModel.Configuration) {
        self.configuration = configuration
    }

    /// The running child, if any.
    var currentChild: ServerChild? { child }

    /// Makes sure a server is there and returns how to reach it; starts a child when needed.
    func connect() async throws -> ServerInfo {
        guard !closed else { throw LooplError(.closed, "The model was closed; create a new one.") }
        switch configuration.target {
        case .child(let model):
            if let child, let info, child.isRunning { return info }
            // Callers that arrive while a child starts wait for that one rather than start another.
            if let starting { return try await starting.value }
            let previous = child
            child = nil
            info = nil
            let configuration = self.configuration
            let task = Task { () throws -> (ServerChild, ServerInfo) in
                // llama-server may outlive a dead RPC worker; nothing of the old child stays.
                await previous?.stop(grace: .seconds(1))
                let started = try await ServerChild.start(model: model, configuration: configuration)
                let props = try? await started.endpoint.fetch("/props")
                let context = props?.json["default_generation_settings"]?["n_ctx"]?.intValue ?? configuration.contextLength
                return (started, ServerInfo(endpoint: started.endpoint, contextSize: context, llamaCpp: true))
            }
            starting = Task { try await task.value.1 }
            defer { starting = nil }
            let (started, connected) = try await task.value
            guard !closed else {
                await started.stop()
                throw LooplError(.closed, "The model was closed while its server was starting.")
            }
            child = started
            info = connected
            return connected
        case .attach(let url, let apiKey):
            if let info { return info }
            let connected = try await Self.probe(ServerEndpoint(baseURL: url, apiKey: apiKey), configuration: configuration)
            info = connected
            return connected
        }
    }

    /// Checks that an OpenAI-compatible server answers at `endpoint`, and whether it is llama-server.
    private static func probe(_ endpoint: ServerEndpoint, configuration: LlamaServerModel.Configuration) async throws -> ServerInfo {
        let url = endpoint.baseURL
        // A llama-server that is still loading answers 503 on /health (and on /v1/models): wait for it.
        var health = try await endpoint.fetch("/health")
        let deadline = ContinuousClock.now + configuration.readinessStallTimeout
        while health.status == 503, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            health = try await endpoint.fetch("/health")
        }
        if health.status == 503 {
            throw LooplError(.connectionFailed, "The server at \(url.absoluteString) is still loading after \(configuration.readinessStallTimeout). Try again later.")
        }
        let props = try await endpoint.fetch("/props")
        if props.status == 401 || props.status == 403 {
            throw ServerFailure.http(status: props.status, body: Data(props.text.utf8), url: url)
        }
        if props.status == 200, let settings = props.json["default_generation_settings"] {
            return ServerInfo(endpoint: endpoint, contextSize: settings["n_ctx"]?.intValue ?? configuration.contextLength, llamaCpp: true)
        }
        let models = try await endpoint.fetch("/v1/models")
        guard models.status == 200 else {
            if models.status == 401 || models.status == 403 {
                throw ServerFailure.http(status: models.status, body: Data(models.text.utf8), url: url)
            }
            throw LooplError(.protocolViolation, "The server at \(url.absoluteString) is not an OpenAI-compatible server: GET /v1/models answered HTTP \(models.status). Check the URL (without /v1).")
        }
        guard let list = models.json["data"]?.arrayValue else {
            throw LooplError(.protocolViolation, "The server at \(url.absoluteString) is not an OpenAI-compatible server: GET /v1/models did not answer a model list. Check the URL.")
        }
        let context = list.first?["max_model_len"]?.intValue ?? configuration.contextLength
        return ServerInfo(endpoint: endpoint, contextSize: context, llamaCpp: false)
    }

    /// The context size in tokens.
    func contextSize() async throws -> Int {
        let info = try await connect()
        guard let size = info.contextSize else {
            throw LooplError(.invalidConfiguration, "The server at \(info.endpoint.baseURL.absoluteString) does not report its context size; set contextLength in the configuration.")
        }
        return size
    }

    /// Ends the child; later requests fail with `closed`.
    func close() async {
        closed = true
        info = nil
        let child = self.child
        self.child = nil
        await child?.stop()
    }

    // MARK: - One request at a time

    func acquire() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }

    // MARK: - After a request

    /// After a cancelled or cut-short request: makes sure the server stopped generating, and
    /// restarts a child that goes on for longer than the grace period.
    func settleAfterDisconnect() async {
        guard let info, info.llamaCpp else { return }
        let grace = configuration.cancellationGrace
        let idle = await Task.detached {
            let deadline = ContinuousClock.now + grace
            while ContinuousClock.now < deadline {
                // No answer counts as busy (a hung server); a server without /slots cannot be checked.
                if let slots = try? await info.endpoint.fetch("/slots", timeout: 0.5) {
                    guard slots.status == 200, let list = slots.json.arrayValue else { return true }
                    if !list.contains(where: { $0["is_processing"]?.boolValue == true }) { return true }
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }.value
        if !idle, let child {
            self.child = nil
            self.info = nil
            await child.stop(grace: .seconds(1))
        }
    }

    /// The error for a request that failed with `error`: the child's death when it died. A lost
    /// connection, a death or a stall (the child is then stopped) is an engine loss.
    func explain(_ error: any Error, url: URL) async -> any Error {
        if let error = error as? HTTPStatusError, child?.exitStatus == nil {
            return ServerFailure.http(status: error.status, body: error.body, url: url)
        }
        if let child {
            let status = await Task.detached { await child.waitForExit(timeout: .milliseconds(500)) }.value
            if status != nil {
                self.child = nil
                self.info = nil
                let death = child.deathError(during: "while answering").markingEngineLoss()
                await child.stop(grace: .seconds(1))
                return death
            }
        }
        if closed { return LooplError(.closed, "The model was closed during the request.") }
        let failure = ServerFailure.connection(error, url: url)
        switch error as? HTTPTransportError {
        case .timedOut?:
            guard let child else { return failure.markingEngineLoss() }
            self.child = nil
            self.info = nil
            await child.stop(grace: .seconds(1))
            return LooplError(failure.code, failure.message + " The stalled llama-server was stopped; the next request starts a new one.",
                              engineLoss: .restarting)
        case .connectionLost?:
            return failure.markingEngineLoss()
        default:
            return failure
        }
    }
}
