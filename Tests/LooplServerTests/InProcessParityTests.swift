#if canImport(LooplLlama)
import Loopl
import LooplLlama
import LooplServer
import LooplTestKit
import Testing

/// The same conversation reaches the model as the same tokens through llama-server as in process.
@Suite(.serialized) struct InProcessParityTests {
    @Test(.timeLimit(.minutes(5)))
    func samePromptTokensAndGreedyStart() async throws {
        // Both with their defaults: the same model, each rendering through Loopl's one prompt builder.
        let server = try await LlamaServerModel.start(.init(contextLength: 2048, threads: 2))
        let local = try await LlamaModel.start(.init(contextLength: 2048, threads: 2))
        // End of generation is not ignored: with it ignored llama-server bans end-of-generation tokens
        // while the in-process backend samples them and goes on, so the texts part there.
        let options = GenerationOptions.greedy(maxTokens: 16)
        // Both render with the model's own template through Loopl's engine (no system turn here:
        // the template adds SmolLM's default one on both).
        let counting: [Message] = [.user("Count from 1 to 20, separated by commas.")]
        for messages in [ModelConformance.greeting, ModelConformance.weatherQuestion, counting] {
            let remote = try await ModelConformance(model: server).run("parity", messages, options: options)
            let inProcess = try await ModelConformance(model: local).run("parity", messages, options: options)
            let remoteMetrics = try #require(remote.metrics.last)
            let localMetrics = try #require(inProcess.metrics.last)
            #expect(remoteMetrics.promptTokens == localMetrics.promptTokens)
            #expect(remoteMetrics.generatedTokens == localMetrics.generatedTokens)
            #expect(remote.text == inProcess.text)
        }
        #expect(try await server.contextSize == local.contextSize)
        await server.close()
        await local.close()
    }
}
#endif
