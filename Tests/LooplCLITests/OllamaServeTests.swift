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
        let checks = ["root", "version", "tags", "show", "chat", "chat-stream", "num-predict", "format-schema", "generate",
                      "generate-raw", "load", "tool-result", "ps", "latest", "errors", "curl", "browsers"]
        try server.expectAtRoot("ollama_check.py", checks, model: "llama", key: "secret")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    @Test(.timeLimit(.minutes(5)))
    func callsAndThinkingAreLiftedFromWorkers() throws {
        let server = try ServeProcess([], config: ServeProcess.clients + "/serve-workers.json")
        try server.expectAtRoot("ollama_check.py", ["tools"], model: "hermes")
        try server.expectAtRoot("ollama_check.py", ["think"], model: "thinking")
        #expect(server.stop().status == 0)
    }
}
