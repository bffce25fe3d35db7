import Foundation
import Loopl
import Testing

/// `loopl serve`'s Anthropic Messages endpoints as their clients see them: the real `anthropic`
/// SDK (and raw HTTP where the SDK cannot go) against the real binary.
@Suite(.serialized) struct MessagesServeTests {
    @Test(.timeLimit(.minutes(10)))
    func theAnthropicSDKIsServedByTheInProcessModel() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig(aliases: ["gpt-4o-mini", "*"]))
        try server.expectAnthropicChecks(["create", "stream", "tools-any", "tools-stream", "tool-result", "count-tokens", "count-exact",
                                          "bad-key", "missing-max-tokens", "refusals", "same-call"], model: "llama", key: "secret")
        try server.expectAnthropicChecks(["create"], model: "claude-sonnet-4-5", key: "secret")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
        #expect(!stopped.errors.contains("secret"), "the key was logged: \(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(5)))
    func theReasoningWorkerStreamsReasoningDeltas() throws {
        let server = try ServeProcess([], config: ServeProcess.clients + "/serve-workers.json")
        try server.expectAnthropicChecks(["thinking", "count-tokens", "count-estimated"], model: "thinking")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(5)))
    func aLongPromptGetsPingEvents() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess([], config: try ServeProcess.llamaConfig(serve: ["keepAliveSeconds": 0.05]))
        try server.expectAnthropicChecks(["ping"], model: "llama")
        #expect(server.stop().status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func anEngineLostAfterItsFirstTokenEndsTheStreamWithAnErrorEvent() throws {
        let worker: [JSONValue] = ["python3", "backends/python/worker.py", "--script", "backends/python/script.json", "--fault", "crash"]
        let config = try ServeProcess.config(["default": "late", "backends": [
            "late": ["kind": "stdio", "command": .array(worker + ["--fault-after", "2"])],
        ]])
        let server = try ServeProcess([], config: config)
        try server.expectAnthropicChecks(["stream-error"], model: "late")
        #expect(server.stop().status == 0)
    }
}

extension ServeProcess {
    /// Runs the Anthropic SDK checks `names` against `model`; records each failure.
    func expectAnthropicChecks(_ names: [String], model: String, key: String = "none",
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectAtRoot("anthropic_check.py", names, model: model, key: key, sourceLocation: sourceLocation)
    }

    /// Runs the checks `names` of `script`, a client given the server's root, against `model`.
    func expectAtRoot(_ script: String, _ names: [String], model: String, key: String = "none",
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expect(script, ["--base-url", "http://127.0.0.1:\(port)", "--api-key", key, "--model", model],
                   checks: names, sourceLocation: sourceLocation)
    }
}
