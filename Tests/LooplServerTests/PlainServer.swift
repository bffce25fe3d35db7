import Foundation
import Loopl
@testable import LooplServer

/// A llama-server that a test starts itself, without a key, to attach to: on a free port with
/// the retry the backend's own children get (another process may take the port first).
struct PlainServer {
    let process: ChildProcess
    let endpoint: ServerEndpoint

    /// Starts llama-server on the default model with `arguments` and waits for a healthy answer;
    /// `port` picks the port of each attempt.
    static func start(_ arguments: [String], environment extra: [String: String] = [:],
                      port nextPort: () throws -> Int = FreePort.find) async throws -> PlainServer {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        return try await FreePort.launch(busyWord: "bind", port: nextPort, { port in
            try ChildProcess(executable: LlamaCppInstall.server, arguments: [
                "-m", LooplHome.defaultModel, "--host", "127.0.0.1", "--port", String(port), "--no-webui"] + arguments,
                environment: environment)
        }, ready: { process, port in
            let endpoint = ServerEndpoint(baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"), apiKey: nil)
            let deadline = ContinuousClock.now + .seconds(120)
            while (try? await endpoint.fetch("/health").status) != 200 {
                guard process.exitStatus == nil else {
                    throw LooplError(.processFailed, "llama-server ended before it was ready: \(process.lastLines)")
                }
                guard ContinuousClock.now < deadline else {
                    throw LooplError(.timedOut, "llama-server was not ready in 2 minutes: \(process.lastLines)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            return PlainServer(process: process, endpoint: endpoint)
        })
    }
}
