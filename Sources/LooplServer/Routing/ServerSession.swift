import Foundation
import Loopl
import LooplHTTP

/// A request's hold on one server: which one, its slot on a child, and the child it went to.
struct Lease: Sendable {
    let upstream: Int
    let epoch: Int
    let info: ServerInfo
    /// The child's slot that the request runs in; nil when attached.
    let slot: Int?
    /// The child that serves it; nil when attached.
    let child: ServerChild?
}

/// The state behind a ``LlamaServerModel``: the child or the attached servers, and the requests
/// in flight on each.
actor ServerSession {
    let configuration: LlamaServerModel.Configuration
    /// Admits the requests: ``LlamaServerModel/Configuration/parallel`` for each server at once,
    /// and up to ``LlamaServerModel/Configuration/maxQueue`` waiting.
    nonisolated let queue: RequestQueue
    private var upstreams: [Upstream]
    private var child: ServerChild?
    private var starting: Task<ServerInfo, any Error>?
    private var closed = false
    /// The replica each conversation went to last.
    private var homes: [String: Int] = [:]
    private var clock: UInt64 = 0

    init(configuration: LlamaServerModel.Configuration) {
        self.configuration = configuration
        let urls = configuration.target.urls
        upstreams = urls.isEmpty ? [Upstream(url: nil, parallel: configuration.parallel)]
            : urls.map { Upstream(url: $0, parallel: configuration.parallel) }
        queue = RequestQueue(parallel: configuration.parallel * upstreams.count, maxQueue: configuration.maxQueue)
    }

    /// The running child, if any.
    var currentChild: ServerChild? { child }

    /// How many requests each server has in flight.
    var inFlight: [Int] { upstreams.map(\.inFlight) }

    /// The slot that `conversation` keeps on the child, if any.
    func slot(of conversation: String) -> Int? { upstreams.first?.slots?.slot(of: conversation) }

    /// Makes sure a server is there and returns how to reach it: starts a child when needed, or
    /// probes the attached servers until one answers.
    func connect() async throws -> ServerInfo {
        guard !closed else { throw Self.closedError }
        if configuration.target.urls.isEmpty { return try await connectChild() }
        if let info = upstreams.lazy.compactMap(\.info).first { return info }
        let indices = upstreams.indices
        let results = await withTaskGroup(of: (Int, Result<ServerInfo, any Error>).self) { group in
            for index in indices {
                group.addTask {
                    do { return (index, .success(try await self.probe(index))) } catch { return (index, .failure(error)) }
                }
            }
            var results: [Int: Result<ServerInfo, any Error>] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        var firstError: (any Error)?
        for index in upstreams.indices {
            switch results[index] {
            case .success(let info)?: return info
            case .failure(let error)?: firstError = firstError ?? error
            case nil: break
            }
        }
        throw noneAnswers(firstError)
    }

    private func connectChild() async throws -> ServerInfo {
        guard case .child(let model) = configuration.target else { throw Self.closedError }
        if let child, let info = upstreams[0].info, child.isRunning { return info }
        // Callers that arrive while a child starts wait for that one rather than start another.
        if let starting { return try await starting.value }
        let previous = child
        child = nil
        upstreams[0].lost()
        let configuration = self.configuration
        let task = Task { () throws -> (ServerChild, ServerInfo) in
            // llama-server may outlive a dead RPC worker; nothing of the old child stays.
            await previous?.stop(grace: .seconds(1))
            let started = try await ServerChild.start(model: model, configuration: configuration)
            let props = try? await started.endpoint.fetch("/props")
            let info = props.flatMap { ServerInfo.llamaServer(started.endpoint, props: $0.json, configuration: configuration) }
                ?? ServerInfo(endpoint: started.endpoint, contextSize: configuration.contextLength, llamaCpp: true, slots: nil)
            return (started, info)
        }
        starting = Task { try await task.value.1 }
        defer { starting = nil }
        let (started, connected) = try await task.value
        guard !closed else {
            await started.stop()
            throw LooplError(.closed, "The model was closed while its server was starting.")
        }
        child = started
        upstreams[0].connected(connected, parallel: configuration.parallel)
        return connected
    }

    /// Probes the attached server `index`, once for every caller that arrives meanwhile; a
    /// failure puts it in back-off.
    private func probe(_ index: Int) async throws -> ServerInfo {
        if let info = upstreams[index].info { return info }
        if let probing = upstreams[index].probing { return try await probing.value }
        guard let url = upstreams[index].url else { return try await connectChild() }
        let endpoint = ServerEndpoint(baseURL: url, apiKey: configuration.target.apiKey)
        let configuration = self.configuration
        let patient = upstreams.count == 1
        let task = Task { try await ServerInfo.probe(endpoint, configuration: configuration, patient: patient) }
        upstreams[index].probing = task
        defer { upstreams[index].probing = nil }
        do {
            let info = try await task.value
            upstreams[index].connected(info, parallel: configuration.parallel)
            return info
        } catch {
            upstreams[index].failed(backoff: configuration.replicaBackoff)
            throw error
        }
    }

    /// The context size of one request in tokens: the smallest of the servers that answered.
    func contextSize() async throws -> Int {
        let info = try await connect()
        guard let size = upstreams.compactMap(\.info?.contextSize).min() ?? info.contextSize else {
            throw LooplError(.invalidConfiguration, "The server at \(info.endpoint.baseURL.redacted) does not report its context size; set contextLength in the configuration.")
        }
        return size
    }

    // MARK: - Requests

    /// Chooses a server for a request of `conversation` on `prompt` (skipping those in
    /// `skipping`, which failed it), waits for a place there, and holds a slot on a child.
    /// `previous` is why the last server failed the request.
    func lease(conversation: String?, prompt: String, skipping: Set<Int> = [], previous: (any Error)? = nil) async throws -> Lease {
        guard !closed else { throw Self.closedError }
        let (index, picked) = try await pick(conversation: conversation, skipping: skipping, previous: previous)
        do { try await upstreams[index].places.acquire() } catch {
            upstreams[index].inFlight -= 1
            throw error
        }
        let epoch = upstreams[index].epoch
        let slot = upstreams[index].slots?.take(conversation: conversation, prompt: prompt)
        return Lease(upstream: index, epoch: epoch, info: upstreams[index].info ?? picked, slot: slot,
                     child: upstreams[index].url == nil ? child : nil)
    }

    /// The server for a request, counted in flight, and what it said about itself.
    private func pick(conversation: String?, skipping: Set<Int>, previous: (any Error)?) async throws -> (Int, ServerInfo) {
        if configuration.target.urls.isEmpty {
            let info = try await connectChild()
            upstreams[0].inFlight += 1
            return (0, info)
        }
        var skipped = skipping
        var firstError = previous
        while let index = upstreams.choose(home: conversation.flatMap { homes[$0] }, skipping: skipped, now: .now) {
            // Counted before the probe, so that requests arriving meanwhile spread.
            upstreams[index].inFlight += 1
            clock += 1
            upstreams[index].lastChosen = clock
            do {
                let info = try await probe(index)
                if let conversation {
                    // A lost home costs only a cache miss: the map is bounded by starting afresh.
                    if homes.count >= 4096, homes[conversation] == nil { homes.removeAll(keepingCapacity: true) }
                    homes[conversation] = index
                }
                return (index, info)
            } catch {
                upstreams[index].inFlight -= 1
                firstError = firstError ?? error
                skipped.insert(index)
            }
        }
        throw noneAnswers(firstError)
    }

    /// Ends a request's hold. `failed` puts an attached server in back-off: it refused the
    /// connection or broke off the answer.
    func release(_ lease: Lease, failed: Bool = false) {
        upstreams[lease.upstream].inFlight -= 1
        if upstreams[lease.upstream].epoch == lease.epoch {
            if let slot = lease.slot { upstreams[lease.upstream].slots?.release(slot) }
            if failed, upstreams[lease.upstream].url != nil {
                upstreams[lease.upstream].failed(backoff: configuration.replicaBackoff)
            }
        }
        upstreams[lease.upstream].places.release()
    }

    /// The error when no server can take a request: the only one's own, or a sentence for all.
    private func noneAnswers(_ error: (any Error)?) -> any Error {
        let error = error ?? LooplError(.connectionFailed, "No server can take the request.")
        guard upstreams.count > 1 else { return error }
        let reason = (error as? LooplError)?.message ?? "\(error)"
        return LooplError((error as? LooplError)?.code ?? .connectionFailed,
                          "None of the \(upstreams.count) servers in 'urls' can take the request; each is tried again after a back-off. The first said: \(reason)")
    }

    /// Ends the child; later requests fail with `closed`.
    func close() async {
        closed = true
        for index in upstreams.indices { upstreams[index].lost() }
        let child = self.child
        self.child = nil
        await child?.stop()
    }

    private static let closedError = LooplError(.closed, "The model was closed; create a new one.")

    // MARK: - After a request

    /// After a cancelled or cut-short request on a child: waits until its slot stopped
    /// generating, so that no request is sent to a busy slot. A child that does not answer for
    /// the grace period, or whose slot goes on for ten times as long, is stopped (the other
    /// requests in flight on it then fail as engine losses) and the next request starts a new one.
    func settleAfterDisconnect(_ lease: Lease) async {
        guard let child = lease.child, let slot = lease.slot else { return }
        let endpoint = lease.info.endpoint
        let grace = configuration.cancellationGrace
        let idle = await Task.detached {
            let giveUp = ContinuousClock.now + grace * 10
            var silentUntil = ContinuousClock.now + grace
            while ContinuousClock.now < min(silentUntil, giveUp) {
                // No answer counts as busy (a hung server); a server without /slots cannot be checked.
                if let slots = try? await endpoint.fetch("/slots", timeout: 1) {
                    guard slots.status == 200, let list = slots.json.arrayValue else { return true }
                    let entry = list.first { $0["id"]?.intValue == slot }
                    if entry?["is_processing"]?.boolValue != true { return true }
                    silentUntil = ContinuousClock.now + grace
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }.value
        if !idle { await drop(child) }
    }

    /// The error for a request that failed with `error`: its child's death when it died. A lost
    /// connection, a death or a stall (the child is then stopped) is an engine loss.
    func explain(_ error: any Error, lease: Lease, url: URL) async -> any Error {
        let child = lease.child
        if let error = error as? HTTPStatusError, child?.exitStatus == nil {
            return ServerFailure.http(status: error.status, body: error.body, url: url)
        }
        if let child {
            let status = await Task.detached { await child.waitForExit(timeout: .milliseconds(500)) }.value
            if status != nil {
                // Named before the rest of the child is stopped, which ends its other workers too.
                let death = child.deathError(during: "while answering").markingEngineLoss()
                await drop(child)
                return death
            }
        }
        if closed { return LooplError(.closed, "The model was closed during the request.") }
        let failure = ServerFailure.connection(error, url: url)
        switch error as? HTTPTransportError {
        case .timedOut?:
            guard let child else { return failure.markingEngineLoss() }
            await drop(child)
            return LooplError(failure.code, failure.message + " The stalled llama-server was stopped; the next request starts a new one.",
                              engineLoss: .restarting)
        case .connectionLost?:
            return failure.markingEngineLoss()
        default:
            return failure
        }
    }

    /// Stops `old`, and forgets it when it is the current child: the next request starts a new one.
    private func drop(_ old: ServerChild) async {
        if child === old {
            child = nil
            upstreams[0].lost()
        }
        await old.stop(grace: .seconds(1))
    }
}
