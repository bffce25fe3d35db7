import Loopl
@testable import LooplServer
import LooplTestKit
import Testing

/// The `speculative` key of a `server` backend becomes llama-server's `--spec-type` and sizes.
@Suite struct ServerSpeculationTests {
    @Test func ngramDraftingIsPassedAsNgramSimpleWithItsSizes() throws {
        var section = ConfigSection(["speculative": ["type": "ngram", "draftMax": 12, "ngramMax": 5]], context: "backend 'server'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        let line = ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
        #expect(line.contains("--spec-type ngram-simple --spec-ngram-simple-size-n 5 --spec-ngram-simple-size-m 12"), "\(line)")
    }

    @Test func aDraftModelIsPassedAsDraftSimpleWithItsSizes() throws {
        var section = ConfigSection(["speculative": ["draftModel": "small.gguf", "draftMax": 8, "draftMin": 2]], context: "backend 'server'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        #expect(configuration.speculative.kind == .draft)
        let line = ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
        #expect(line.contains("--spec-type draft-simple --spec-draft-model small.gguf --spec-draft-n-max 8 --spec-draft-n-min 2"), "\(line)")
    }

    /// A real child drafts with the model it is given (here the model itself) and reports the
    /// drafts in its metrics.
    @Test(.timeLimit(.minutes(3)))
    func aChildDraftsWithItsDraftModel() async throws {
        let speculative = Speculation(kind: .draft, draftMax: 8, draftModel: LooplHome.defaultModel)
        let model = try await LlamaServerModel.start(.init(contextLength: 1024, parallel: 1, threads: 2, speculative: speculative))
        var options = GenerationOptions.greedy(maxTokens: 48)
        options.backend.ignoreEndOfGeneration = true
        let turn: ModelConformance.Turn
        do { turn = try await ModelConformance(model: model).run("draft", [.user("Count from one to twenty in words.")], options: options) } catch {
            await model.close()
            throw error
        }
        await model.close()
        let metrics = try #require(turn.metrics.last)
        #expect(metrics.generatedTokens == 48)
        #expect(metrics.acceptedDraftTokens > 0 && metrics.acceptedDraftTokens <= metrics.draftTokens,
                "\(metrics.acceptedDraftTokens) of \(metrics.draftTokens) drafted tokens held")
    }

    @Test func noneAndTheDefaultPassNoSpeculationFlag() throws {
        for object: JSONObject in [[:], ["speculative": ["type": "none"]]] {
            var section = ConfigSection(object, context: "backend 'server'")
            let configuration = try LlamaServerModel.configuration(from: &section)
            let line = ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
            #expect(!line.contains("--spec"), "\(line)")
        }
    }

    @Test(arguments: [
        (#"{"type": "eagle"}"#, "'type' must be \"ngram\" or \"draft\" or \"none\""),
        (#"{"type": "draft"}"#, "'draftModel' (the GGUF file drafts come from) goes with the type \"draft\""),
        (#"{"type": "ngram", "draftModel": "d.gguf"}"#, "'draftModel'"),
        (#"{"draftMax": 0}"#, "'draftMin' and 'draftMax' must be from 1 to 64"),
        (#"{"ngramMin": 5, "ngramMax": 3}"#, "'ngramMin' and 'ngramMax' must be from 1 to 16"),
        (#"{"draftmax": 4}"#, "draftmax"),
    ])
    func badSpeculationIsAConfigError(_ speculative: String, _ message: String) throws {
        let object = try #require(try JSONValue(parsing: speculative).objectValue)
        var section = ConfigSection(["speculative": .object(object)], context: "backend 'server'")
        do {
            _ = try LlamaServerModel.configuration(from: &section)
            Issue.record("\(speculative) was accepted")
        } catch let error as LooplError {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
