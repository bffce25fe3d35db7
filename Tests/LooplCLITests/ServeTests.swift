import Foundation
import Loopl
import Testing

/// `loopl serve` as its clients see it: the real `openai` SDK and raw HTTP against the real
/// binary on the default model, and on scripted stdio workers for the lifting checks.
@Suite(.serialized) struct ServeTests {
    static func requireModel() throws {
        try #require(FileManager.default.fileExists(atPath: LooplHome.defaultModel), "run scripts/bootstrap first")
    }

    static func raw(_ server: ServeProcess, _ checks: [String], key: String? = nil, model: String = "llama",
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        try server.expect("serve_check.py", ["--port", String(server.port), "--model", model,
                                             "--pid", String(server.process.processIdentifier)] + (key.map { ["--key", $0] } ?? []),
                          checks: checks, sourceLocation: sourceLocation)
    }

    /// A forced call that `max_tokens` cuts gives no markup and no call on chat (whole and streamed),
    /// Responses, Messages and Ollama's chat.
    @Test(.timeLimit(.minutes(10)))
    func aCutCallLeavesNoMarkupOnAnyDialect() throws {
        try Self.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig())
        try Self.raw(server, ["cut-call"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(10)))
    func theOpenAISDKIsServedByTheInProcessModel() throws {
        try Self.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig())
        try server.expectChecks(["chat", "stream", "tools-required", "tools-single", "tools-named", "tools-none", "tools-stream", "tool-result",
                                 "json-schema", "models", "errors", "bad-key", "keepalive"], model: "llama", key: "secret")
        try server.expectChecks(["chat"], model: "gpt-4o-mini", key: "secret")
        try Self.raw(server, ["health", "missing-key", "errors", "chunked-body", "flood"], key: "secret")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
        #expect(!stopped.errors.contains("secret"), "the key was logged: \(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(10)))
    func streamsRunConcurrentlyAndADisconnectFreesItsSlot() throws {
        try Self.requireModel()
        let many = try ServeProcess([], config: try ServeProcess.llamaConfig(parallel: 4))
        try Self.raw(many, ["concurrent"])
        #expect(many.stop().status == 0)
        let one = try ServeProcess([], config: try ServeProcess.llamaConfig(parallel: 1, maxQueue: 1))
        try Self.raw(one, ["disconnect", "queue"])
        #expect(one.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func sigtermLetsTheStreamInFlightFinishAndLeavesNoChild() throws {
        try Self.requireModel()
        // The grace is long enough for the 64 tokens on a loaded machine: the check is that the
        // stream ends whole, not how fast.
        let config = try ServeProcess.config(["default": "isolated", "serve": ["shutdownGraceSeconds": 120], "backends": [
            "isolated": ["kind": "stdio", "command": .array([.string(ServeProcess.binary), "worker", "--backend", "llama", "-t", "2",
                                                             "-m", .string(LooplHome.defaultModel)])],
        ]])
        let server = try ServeProcess(["--preload"], config: config)
        let workers = Self.children(of: server.process.processIdentifier)
        #expect(!workers.isEmpty, "--preload started no worker")
        try Self.raw(server, ["sigterm"], model: "isolated")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
        // An exited child that loopl serve did not reap is reaped by init a moment later.
        var left = workers.filter(Self.alive)
        for _ in 0..<20 where !left.isEmpty {
            Thread.sleep(forTimeInterval: 0.1)
            left = left.filter(Self.alive)
        }
        #expect(left.isEmpty, "workers \(left) outlived loopl serve")
    }

    @Test(.timeLimit(.minutes(5)))
    func textOnlyWorkersGetTheirCallsAndReasoningLifted() throws {
        let server = try ServeProcess([], config: ServeProcess.clients + "/serve-workers.json")
        try server.expectChecks(["hermes-tools"], model: "hermes")
        try server.expectChecks(["reasoning"], model: "thinking")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func aliasesAnswerForTheirBackendAndStarTakesEveryName() throws {
        try Self.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig(aliases: ["gpt-4o-mini", "*"],
                                                                               extra: ["missing": ["kind": "llama", "model": "/nonexistent/model.gguf"]]))
        try Self.raw(server, ["any-name", "default-model", "no-cors", "unavailable"])
        try server.expectChecks(["models"], model: "gpt-4o-mini")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func aLongPromptGetsKeepAliveComments() throws {
        try Self.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig(serve: ["keepAliveSeconds": 0.05]))
        try Self.raw(server, ["ping"])
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func anEngineLostBeforeItsFirstTokenIsRetriedAndAfterItEndsTheStream() throws {
        let once = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-crash-once-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: once) }
        let worker: [JSONValue] = ["python3", "backends/python/worker.py", "--script", "backends/python/script.json", "--fault", "crash"]
        let config = try ServeProcess.config(["default": "early", "backends": [
            "early": ["kind": "stdio", "command": .array(worker + ["--fault-after", "0", "--fault-once", .string(once)])],
            "late": ["kind": "stdio", "command": .array(worker + ["--fault-after", "2"])],
        ]])
        let server = try ServeProcess([], config: config)
        try Self.raw(server, ["crash-early"], model: "early")
        try Self.raw(server, ["crash-late"], model: "late")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPortInUseIsAClearErrorAndAnOpenAddressWithoutAKeyAWarning() throws {
        let config = try ServeProcess.config(["default": "python", "backends": [
            "python": ["kind": "stdio", "command": ["python3", "backends/python/worker.py", "--script", "backends/python/script.json"]],
        ]])
        let first = try ServeProcess([], config: config)
        let second = Process()
        second.executableURL = URL(fileURLWithPath: ServeProcess.binary)
        second.arguments = ["serve", "--config", config, "--port", String(first.port)]
        second.currentDirectoryURL = URL(fileURLWithPath: ServeProcess.root)
        let pipe = Pipe()
        second.standardError = pipe
        try second.run()
        let errors = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        second.waitUntilExit()
        #expect(second.terminationStatus == 1, "\(errors)")
        #expect(errors.contains("\(first.port)") && errors.contains("in use"), "\(errors)")
        #expect(first.stop().status == 0)
        #expect(!first.banner.contains("warning:"), "\(first.banner)")
        let two = try ServeProcess.config(["default": "python", "backends": [
            "python": ["kind": "stdio", "command": ["python3", "backends/python/worker.py", "--script", "backends/python/script.json"]],
            "other": ["kind": "stdio", "command": ["python3", "backends/python/worker.py", "--script", "backends/python/script.json"]],
        ]])
        let some = try ServeProcess(["--backends", "python"], config: two)
        try Self.raw(some, ["only-served"], model: "python")
        #expect(some.stop().status == 0)
        let open = try ServeProcess(["--host", "0.0.0.0"], config: config)
        #expect(open.banner.contains("warning: Listening on 0.0.0.0 without an API key"), "\(open.banner)")
        #expect(open.banner.hasSuffix("listening on http://0.0.0.0:\(open.port)\n"), "\(open.banner)")
        #expect(open.stop().status == 0)
    }

    /// The pids whose parent is `pid`, seen through the reapers between a host and its children.
    static func children(of pid: Int32) -> [Int32] { ProcessWatch.children(of: pid) }

    /// True while a process `pid` exists (a zombie counts).
    static func alive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }
}
