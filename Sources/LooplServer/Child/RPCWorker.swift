import Foundation
import Loopl

/// A `ggml-rpc-server` worker started by this host on a free port of 127.0.0.1: a device that
/// llama-server's `--rpc` places layers on. Like llama-server it never outlives the host.
final class RPCWorker: Sendable {
    let process: ChildProcess
    let endpoint: RPCEndpoint

    private init(process: ChildProcess, endpoint: RPCEndpoint) {
        self.process = process
        self.endpoint = endpoint
    }

    /// Starts `count` workers of `threads` threads each and waits until every port accepts;
    /// on failure the ones already started are stopped.
    static func start(count: Int, threads: Int, executable: String = LlamaCppInstall.rpcServer,
                      stall: Duration = .seconds(30)) async throws -> [RPCWorker] {
        var workers: [RPCWorker] = []
        do {
            for _ in 0..<count {
                workers.append(try await start(threads: threads, executable: executable, stall: stall))
            }
        } catch {
            for worker in workers { await worker.stop(grace: .seconds(1)) }
            throw error
        }
        return workers
    }

    /// Starts one worker; retries on another port when the chosen one was taken before the bind.
    static func start(threads: Int, executable: String, stall: Duration,
                      port nextPort: () throws -> Int = FreePort.find) async throws -> RPCWorker {
        try await FreePort.launch(busyWord: "socket", port: nextPort, { port in
            try ChildProcess(executable: executable, arguments: ["-H", "127.0.0.1", "-p", String(port), "-t", String(max(1, threads))])
        }, ready: { process, port in
            let worker = RPCWorker(process: process, endpoint: RPCEndpoint(host: "127.0.0.1", port: port))
            try await worker.waitUntilAccepting(stall: stall)
            return worker
        })
    }

    /// The exit status, once the worker has ended.
    var exitStatus: Int32? { process.exitStatus }

    /// SIGTERM, then SIGKILL after `grace`.
    func stop(grace: Duration = .seconds(3)) async {
        await process.terminate(grace: grace)
    }

    /// The error for a worker that ended: its address, pid, status and last lines.
    func deathError(during what: String) -> LooplError {
        let status = process.exitStatus.map(ServerChild.describe(status:)) ?? "ended"
        return LooplError(.processFailed, "The RPC worker at \(endpoint) (ggml-rpc-server, pid \(process.pid)) \(status) \(what); the next request starts new workers and a new llama-server. Its last lines:\n\(ServerChild.tail(process.lastLines))")
    }

    private func waitUntilAccepting(stall: Duration) async throws {
        let deadline = ContinuousClock.now + stall
        while true {
            if Task.isCancelled { throw LooplError(.cancelled, "Starting an RPC worker was cancelled.") }
            if let code = process.exitStatus {
                throw LooplError(.processFailed, "The RPC worker ggml-rpc-server at \(endpoint) \(ServerChild.describe(status: code)) while starting. Its last lines:\n\(ServerChild.tail(process.lastLines))")
            }
            if endpoint.refusal(timeout: .milliseconds(500)) == nil { return }
            if ContinuousClock.now > deadline {
                throw LooplError(.processFailed, "The RPC worker ggml-rpc-server at \(endpoint) did not accept connections within \(stall). Its last lines:\n\(ServerChild.tail(process.lastLines))")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
