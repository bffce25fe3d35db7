import Foundation
import Loopl

/// A llama-server process started by this host on a free local port with a random API key, with
/// the RPC workers it started for it (``LlamaServerModel/Configuration/rpcWorkers``).
final class ServerChild: Sendable {
    let process: ChildProcess
    let endpoint: ServerEndpoint
    let port: Int
    /// From spawning to the first healthy answer.
    let loadTime: Duration
    /// The workers this host started, which end with llama-server.
    let workers: [RPCWorker]
    /// The workers that were already running (``LlamaServerModel/Configuration/rpc``).
    let remoteWorkers: [RPCEndpoint]

    private init(process: ChildProcess, endpoint: ServerEndpoint, port: Int, loadTime: Duration,
                 workers: [RPCWorker], remoteWorkers: [RPCEndpoint]) {
        self.process = process
        self.endpoint = endpoint
        self.port = port
        self.loadTime = loadTime
        self.workers = workers
        self.remoteWorkers = remoteWorkers
    }

    /// Starts the RPC workers, if any, then llama-server on `model`, and waits until it answers
    /// /health with 200. `port` picks the port of each attempt.
    static func start(model: String, configuration: LlamaServerModel.Configuration,
                      port nextPort: () throws -> Int = FreePort.find) async throws -> ServerChild {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: model, isDirectory: &isDirectory) else {
            throw LooplError(.modelNotFound, "There is no model file at \(model). Check the path (scripts/bootstrap fetches the default model).")
        }
        guard !isDirectory.boolValue else {
            throw LooplError(.invalidModel, "\(model) is a directory, not a GGUF model file: give the path of the .gguf file.")
        }
        let remote = try configuration.rpcEndpoints()
        for endpoint in remote {
            if let reason = await Task.detached(operation: { endpoint.refusal() }).value {
                throw refusedError(endpoint, reason: reason, during: "before llama-server started")
            }
        }
        let workers = try await RPCWorker.start(count: configuration.rpcWorkers, threads: configuration.rpcThreads)
        do {
            return try await startServer(model: model, configuration: configuration, workers: workers,
                                         remote: remote, port: nextPort)
        } catch {
            for worker in workers { await worker.stop(grace: .seconds(1)) }
            throw error
        }
    }

    private static func startServer(model: String, configuration: LlamaServerModel.Configuration, workers: [RPCWorker],
                                    remote: [RPCEndpoint], port nextPort: () throws -> Int) async throws -> ServerChild {
        let rpc = remote + workers.map(\.endpoint)
        var environment = ProcessInfo.processInfo.environment
        // An abort (a lost RPC worker) ends llama-server at once instead of after a debugger's backtrace.
        environment["GGML_NO_BACKTRACE"] = "1"
        // The key goes in the environment, which only this user can read (/proc/PID/environ),
        // not on the command line, which every user can.
        let key = randomKey()
        environment["LLAMA_API_KEY"] = key
        return try await FreePort.launch(busyWord: "bind", port: nextPort, { port in
            try ChildProcess(executable: configuration.serverPath,
                             arguments: arguments(model: model, port: port, rpc: rpc, configuration: configuration),
                             environment: environment)
        }, ready: { process, port in
            let endpoint = ServerEndpoint(baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"), apiKey: key)
            let start = ContinuousClock.now
            let child = ServerChild(process: process, endpoint: endpoint, port: port, loadTime: .zero,
                                    workers: workers, remoteWorkers: remote)
            try await waitUntilReady(child, model: model, stall: configuration.readinessStallTimeout)
            return ServerChild(process: process, endpoint: endpoint, port: port, loadTime: ContinuousClock.now - start,
                               workers: workers, remoteWorkers: remote)
        })
    }

    /// The exit status of llama-server, or of the first of its workers, once one has ended.
    var exitStatus: Int32? { process.exitStatus ?? workers.lazy.compactMap(\.exitStatus).first }

    /// False once llama-server or one of its workers has ended, even in the moment before the
    /// reaper collected its status.
    var isRunning: Bool {
        exitStatus == nil && ProcessWatch.isRunning(process.pid) && workers.allSatisfy { ProcessWatch.isRunning($0.process.pid) }
    }

    /// Waits up to `timeout` for llama-server or one of its workers to end; returns its status,
    /// or nil if all still run.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, exitStatus == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus
    }

    /// The error for a child that ended: the worker that died or refuses connections (a lost
    /// worker ends llama-server), else llama-server's status and its last log lines.
    func deathError(during what: String) -> LooplError {
        if let dead = workers.first(where: { $0.exitStatus != nil }) { return dead.deathError(during: what) }
        if process.lastLines.contains("RPC") {
            for endpoint in remoteWorkers {
                if let reason = endpoint.refusal(timeout: .milliseconds(500)) {
                    return Self.refusedError(endpoint, reason: reason, during: what)
                }
            }
        }
        let status = process.exitStatus.map { Self.describe(status: $0) } ?? "ended"
        return LooplError(.processFailed, "llama-server (pid \(process.pid)) \(status) \(what); the next request starts a new one. Its last lines:\n\(Self.tail(process.lastLines))")
    }

    /// SIGTERM, then SIGKILL after `grace`: llama-server first, then its workers.
    func stop(grace: Duration = .seconds(3)) async {
        await process.terminate(grace: grace)
        for worker in workers { await worker.stop(grace: grace) }
    }

    static func arguments(model: String, port: Int, rpc: [RPCEndpoint] = [],
                          configuration: LlamaServerModel.Configuration) -> [String] {
        // One slot per request served at once, each with a KV cache of its own of contextLength
        // cells (-c is the total; without a unified cache each of the -np sequences gets a share).
        // No prompt cache in host memory (measured against -kvu in docs/server-backend.md, which
        // evaluated later arrivals' whole prompts again; a bounded --cache-ram is the choice, not
        // yet the default because ModelConformance's concurrency check counts a prompt reused from
        // an earlier run as an error). extraArguments can turn it on, the last value winning.
        var arguments = ["-m", model, "--host", "127.0.0.1", "--port", String(port),
                         "-np", String(configuration.parallel), "--no-kv-unified", "--cache-ram", "0",
                         "-t", String(configuration.resolvedThreads), "--no-webui", "--slots",
                         "-c", String(configuration.parallel * configuration.resolvedContext)]
        if configuration.embeddings {
            // An input is evaluated in one ubatch: without a batch size, one holds a whole context.
            let pooling = configuration.pooling ?? EmbeddingPooling.declared(byModel: model)
            arguments += ["--embeddings", "--pooling", pooling.rawValue]
            if configuration.batchSize == nil {
                arguments += ["--batch-size", String(configuration.resolvedContext), "--ubatch-size", String(configuration.resolvedContext)]
            }
        }
        if let batch = configuration.batchSize {
            // llama-server fills each step's batch with the generating slots' tokens, then prompt
            // tokens up to the batch size: a smaller batch is a smaller prompt chunk per step.
            arguments += ["--batch-size", String(batch), "--ubatch-size", String(batch)]
        }
        if !rpc.isEmpty {
            // Every layer (and the output layer) on the RPC devices, split by their free memory.
            arguments += ["--rpc", rpc.map(\.description).joined(separator: ","), "-ngl", "99"]
        }
        return arguments + speculationArguments(configuration.speculative) + configuration.extraArguments
    }

    /// llama-server's flags for `speculation`: n-gram drafts are its `ngram-simple` type, looking
    /// up the `ngramMax` last tokens and drafting up to `draftMax`; a draft model is its
    /// `draft-simple` type, drafting `draftMin` to `draftMax` tokens.
    static func speculationArguments(_ speculation: Speculation) -> [String] {
        switch speculation.kind {
        case .none: []
        case .ngram: ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", String(speculation.ngramMax),
                      "--spec-ngram-simple-size-m", String(speculation.draftMax)]
        case .draft: ["--spec-type", "draft-simple", "--spec-draft-model", speculation.draftModel ?? "",
                      "--spec-draft-n-max", String(speculation.draftMax), "--spec-draft-n-min", String(speculation.draftMin)]
        }
    }

    /// The error for a worker that was already running and does not accept connections.
    private static func refusedError(_ endpoint: RPCEndpoint, reason: String, during what: String) -> LooplError {
        LooplError(.connectionFailed, "The RPC worker at \(endpoint) refuses connections (\(reason)) \(what). Start ggml-rpc-server there again (ggml-rpc-server -H HOST -p \(endpoint.port)); the next request reconnects.")
    }

    private static func waitUntilReady(_ child: ServerChild, model: String, stall: Duration) async throws {
        let process = child.process
        let endpoint = child.endpoint
        var deadline = ContinuousClock.now + stall
        var lastLines = process.lastLines
        var lastStatus = -1
        while true {
            if Task.isCancelled { throw LooplError(.cancelled, "Starting llama-server was cancelled.") }
            if let worker = child.workers.first(where: { $0.exitStatus != nil }) {
                throw worker.deathError(during: "while llama-server loaded \(model)")
            }
            if let code = process.exitStatus {
                // llama-server aborts when it loses a worker: name the worker.
                if !(child.workers.isEmpty && child.remoteWorkers.isEmpty), process.lastLines.contains("RPC") {
                    throw child.deathError(during: "while llama-server loaded \(model)")
                }
                let lines = process.lastLines
                let reason = lines.contains("failed to load model") || lines.contains("gguf") ? LooplError.Code.invalidModel : .processFailed
                throw LooplError(reason, "llama-server \(Self.describe(status: code)) while loading \(model). Its last lines:\n\(tail(lines))")
            }
            let status = (try? await endpoint.fetch("/health", timeout: 2).status) ?? 0
            if status == 200 { return }
            let lines = process.lastLines
            if lines != lastLines || status != lastStatus {
                lastLines = lines
                lastStatus = status
                deadline = ContinuousClock.now + stall
            } else if ContinuousClock.now > deadline {
                throw LooplError(.processFailed, "llama-server made no progress loading \(model) for \(stall). Its last lines:\n\(tail(lines))")
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    private static func randomKey() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(rng.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// "exited with status 1" or "was killed by signal 9".
    static func describe(status: Int32) -> String {
        status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
    }

    /// The last few lines of a log, for an error message.
    static func tail(_ lines: String, count: Int = 8) -> String {
        lines.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).joined(separator: "\n")
    }
}

