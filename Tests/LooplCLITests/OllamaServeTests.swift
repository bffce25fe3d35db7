import Foundation
import Loopl
import Testing

/// `loopl serve`'s Ollama endpoints as their clients see them: the real `ollama` Python client
/// (and plain HTTP and `curl -d` where Ollama's document goes) against the real binary.
@Suite(.serialized) struct OllamaServeTests {
    @Test(.timeLimit(.minutes(10)))
    func theOllamaClientIsServedByTheInProcessModel() throws {
        try ServeTests.requireModel()
        let server = try ServeProcess(["--api-key", "secret"], config: try ServeProcess.llamaConfig())
        try server.expectOllamaChecks(["root", "version", "tags", "show", "chat", "chat-stream", "num-predict", "format-schema",
                                       "generate", "generate-raw", "load", "tool-result", "ps", "latest", "errors", "curl"],
                                      model: "llama", key: "secret")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(5)))
    func callsAndThinkingAreLiftedFromWorkers() throws {
        let server = try ServeProcess([], config: ServeProcess.clients + "/serve-workers.json")
        try server.expectOllamaChecks(["tools"], model: "hermes")
        try server.expectOllamaChecks(["think"], model: "thinking")
        #expect(server.stop().status == 0)
    }
}

extension ServeProcess {
    /// Runs the `ollama` client checks `names` against `model`; records each failure.
    func expectOllamaChecks(_ names: [String], model: String, key: String = "none",
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expect("ollama_check.py", ["--base-url", "http://127.0.0.1:\(port)", "--api-key", key, "--model", model],
                   checks: names, sourceLocation: sourceLocation)
    }
}
