import Foundation
import Loopl
@testable import LooplServer
import Testing

/// A raw prompt on `loopl serve`'s `/v1/completions` (the `llama` backend in process, with its
/// defaults) gives llama-server's `/completion` tokens at temperature 0, on both test models.
@Suite(.serialized) struct EngineParityTests {
    static let prompts = [
        "The capital of France is",
        "def fibonacci(n):\n",
        "Once upon a time, in a small village by the sea,",
        "Q: What is 17 times 23?\nA:",
        "The three primary colors are",
    ]

    @Test(.timeLimit(.minutes(10)), arguments: [LooplHome.defaultModel, LooplHome.secondModel])
    func rawPromptsGiveTheEnginesTokens(_ model: String) async throws {
        try #require(FileManager.default.fileExists(atPath: model), "run scripts/bootstrap first")
        // llama-server with its defaults but for `--swa-full`, which Loopl's `swaFull` (default true)
        // sets: without it, llama-server evaluates the last 4 prompt tokens of a sliding-window
        // model in a step of their own, to checkpoint the window, and rounds differently (docs/memory.md).
        let engine = try await LlamaServerModel.start(.init(target: .child(model: model), contextLength: 4096, parallel: 1,
                                                             threads: 2, extraArguments: ["--swa-full"]))
        let child = try #require(await engine.session.currentChild?.endpoint)
        var expected: [String] = []
        for prompt in Self.prompts {
            let answer = try await child.fetch("/completion", method: "POST", body: [
                "prompt": .string(prompt), "n_predict": 64, "temperature": 0, "cache_prompt": false], timeout: 300)
            expected.append(try #require(answer.json["content"]?.stringValue, "\(answer.text)"))
        }
        await engine.close()
        let config = try ServeProcess.config(["default": "llama", "backends": [
            "llama": ["kind": "llama", "model": .string(model), "threads": 2, "contextLength": 4096, "promptCache": false]]])
        let serve = try ServeProcess([], config: config)
        let loopl = ServerEndpoint(baseURL: try #require(URL(string: "http://127.0.0.1:\(serve.port)")), apiKey: nil)
        for (prompt, expected) in zip(Self.prompts, expected) {
            let answer = try await loopl.fetch("/v1/completions", method: "POST", body: [
                "model": "llama", "prompt": .string(prompt), "max_tokens": 64, "temperature": 0], timeout: 300)
            #expect(answer.json["choices"]?.arrayValue?.first?["text"]?.stringValue == expected, "\(prompt): \(answer.text)")
        }
        #expect(serve.stop().status == 0)
    }
}
