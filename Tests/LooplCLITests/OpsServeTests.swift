import Foundation
import Loopl
import Testing

/// `loopl serve` in operation: `/v1/completions` with the real `openai` SDK, `/metrics` read by
/// prometheus_client's parser, CORS preflights, and the per-model limit, on the real binary.
@Suite(.serialized) struct OpsServeTests {
    static func ops(_ server: ServeProcess, _ checks: [String], key: String? = nil, model: String = "llama",
                    extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("ops_check.py", ["--port", String(server.port), "--model", model] + (key.map { ["--key", $0] } ?? []) + extra,
                          checks: checks, sourceLocation: sourceLocation)
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("loopl-\(name)-\(UUID())").path
    }

    static func worker(_ arguments: [JSONValue] = []) -> JSONValue {
        .array(["python3", "backends/python/worker.py", "--script", "backends/python/script.json"] + arguments)
    }

    @Test(.timeLimit(.minutes(10)))
    func rawPromptsAreCompletedByTheInProcessModelAndMetricsCountRequestsAndAgentTurns() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig())
        try Self.ops(server, ["completions", "completions-stream", "metrics", "runs-metrics"], key: "secret")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(10)))
    func rawPromptsReachAStdioWorkerAndAServerChildButNotAnAttachedChatServer() throws {
        try ServeTests.requireModel()
        let config = try ServeProcess.config(["default": "isolated", "backends": [
            "isolated": ["kind": "stdio", "command": .array([.string(ServeProcess.binary), "worker", "--backend", "llama", "-t", "2",
                                                             "-m", .string(LooplHome.defaultModel)])],
            "child": ["kind": "server", "model": .string(LooplHome.defaultModel), "threads": 2, "parallel": 1, "contextLength": 2048],
            "python": ["kind": "stdio", "command": Self.worker()],
        ]])
        let server = try ServeProcess([], config: config)
        try Self.ops(server, ["completions", "completions-stream"], model: "isolated")
        try Self.ops(server, ["completions", "completions-stream"], model: "child")
        try Self.ops(server, ["completions-refused"], model: "python")
        let attached = try ServeProcess([], config: try ServeProcess.config(["default": "chat", "backends": [
            "chat": ["kind": "server", "url": .string("http://127.0.0.1:\(server.port)")],
        ]]))
        try Self.ops(attached, ["completions-refused"], model: "chat")
        #expect(attached.stop().status == 0)
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func metricsCountAnEngineRestartAndItsRetryAndCanBePublic() throws {
        let once = Self.temporaryPath("crash-once")
        defer { try? FileManager.default.removeItem(atPath: once) }
        let config = try ServeProcess.config(["default": "early", "serve": ["metricsPublic": true], "backends": [
            "early": ["kind": "stdio", "command": Self.worker(["--fault", "crash", "--fault-after", "0", "--fault-once", .string(once)])],
        ]])
        let server = try ServeProcess(["--api-key", "secret"], config: config)
        try Self.ops(server, ["restarts", "metrics-public"], key: "secret", model: "early")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func preflightsAreAnsweredForAllowedOriginsOnly() throws {
        let keyed = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig(serve: ["corsOrigins": ["http://app.example"]]))
        try Self.ops(keyed, ["cors"], key: "secret", extra: ["--origin", "http://app.example"])
        #expect(keyed.stop().status == 0)
        let anyKeyed = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig(serve: ["corsOrigins": ["*"]]))
        try Self.ops(anyKeyed, ["cors-any"], key: "secret")
        #expect(anyKeyed.stop().status == 0)
        let open = try ServeProcess([], config: try ServeProcess.llamaConfig(serve: ["corsOrigins": ["*"]]))
        try Self.ops(open, ["cors-any"])
        #expect(open.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func maxConcurrentRunsTwoQueuesTwoAndRefusesTheRest() throws {
        let hold = Self.temporaryPath("hold")
        defer { try? FileManager.default.removeItem(atPath: hold) }
        let config = try ServeProcess.config(["default": "held", "backends": [
            "held": ["kind": "stdio", "command": Self.worker(["--hold", .string(hold)]), "parallel": 4, "maxQueue": 2,
                     "maxConcurrent": 2, "idleTimeoutSeconds": 120],
        ]])
        let server = try ServeProcess([], config: config)
        try Self.ops(server, ["limit"], model: "held", extra: ["--hold", hold])
        #expect(server.stop().status == 0)
    }
}
