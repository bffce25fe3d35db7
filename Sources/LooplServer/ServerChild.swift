import Foundation
import Loopl

/// A llama-server process started by this host on a free local port with a random API key.
final class ServerChild: Sendable {
    let process: ChildProcess
    let endpoint: ServerEndpoint
    let port: Int
    /// From spawning to the first healthy answer.
    let loadTime: Duration

    private init(process: ChildProcess, endpoint: ServerEndpoint, port: Int, loadTime: Duration) {
        self.process = process
        self.endpoint = endpoint
        self.port = port
        self.loadTime = loadTime
    }

    /// Starts llama-server on `model` and waits until it answers /health with 200. `port` picks
    /// the port of each attempt.
    static func start(model: String, configuration: LlamaServerModel.Configuration,
                      port nextPort: () throws -> Int = FreePort.find) async throws -> ServerChild {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: model, isDirectory: &isDirectory) else {
            throw LooplError(.modelNotFound, "There is no model file at \(model). Check the path (scripts/bootstrap fetches the default model).")
        }
        guard !isDirectory.boolValue else {
            throw LooplError(.invalidModel, "\(model) is a directory, not a GGUF model file: give the path of the .gguf file.")
        }
        var attempt = 0
        while true {
            attempt += 1
            let port = try nextPort()
            let key = randomKey()
            let process = try ChildProcess(executable: configuration.serverPath,
                                           arguments: arguments(model: model, port: port, key: key, configuration: configuration))
            let endpoint = ServerEndpoint(baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"), apiKey: key)
            let start = ContinuousClock.now
            do {
                try await waitUntilReady(process, endpoint: endpoint, model: model, stall: configuration.readinessStallTimeout)
                return ServerChild(process: process, endpoint: endpoint, port: port, loadTime: ContinuousClock.now - start)
            } catch let error as LooplError {
                await process.terminate(grace: .seconds(1))
                // Another process may have taken the port between the probe and the child's bind.
                if attempt < 3, error.code == .processFailed, process.lastLines.contains("bind") { continue }
                throw error
            } catch {
                await process.terminate(grace: .seconds(1))
                throw error
            }
        }
    }

    /// The child's exit status, once it has ended.
    var exitStatus: Int32? { process.exitStatus }

    /// The error for a child that ended: its status and its last log lines.
    func deathError(during what: String) -> LooplError {
        let status = process.exitStatus.map { describe(status: $0) } ?? "ended"
        return LooplError(.processFailed, "llama-server (pid \(process.pid)) \(status) \(what); the next request starts a new one. Its last lines:\n\(Self.tail(process.lastLines))")
    }

    /// SIGTERM, then SIGKILL after `grace`.
    func stop(grace: Duration = .seconds(3)) async {
        await process.terminate(grace: grace)
    }

    static func arguments(model: String, port: Int, key: String, configuration: LlamaServerModel.Configuration) -> [String] {
        let arguments = ["-m", model, "--host", "127.0.0.1", "--port", String(port), "--api-key", key,
                         "-np", "1", "-t", String(configuration.resolvedThreads), "--no-webui", "--slots",
                         "-c", String(configuration.contextLength ?? LlamaServerModel.Configuration.defaultChildContext)]
        return arguments + configuration.extraArguments
    }

    private static func waitUntilReady(_ process: ChildProcess, endpoint: ServerEndpoint, model: String,
                                       stall: Duration) async throws {
        var deadline = ContinuousClock.now + stall
        var lastLines = process.lastLines
        var lastStatus = -1
        while true {
            if Task.isCancelled { throw LooplError(.cancelled, "Starting llama-server was cancelled.") }
            if let code = process.exitStatus {
                let lines = process.lastLines
                let reason = lines.contains("failed to load model") || lines.contains("gguf") ? LooplError.Code.invalidModel : .processFailed
                throw LooplError(reason, "llama-server \(describe(status: code)) while loading \(model). Its last lines:\n\(tail(lines))")
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

    /// The last few lines of a log, for an error message.
    static func tail(_ lines: String, count: Int = 8) -> String {
        lines.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).joined(separator: "\n")
    }
}

/// "exited with status 1" or "was killed by signal 9".
private func describe(status: Int32) -> String {
    status > 128 ? "was killed by signal \(status - 128)" : "exited with status \(status)"
}
