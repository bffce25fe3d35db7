import Loopl
@testable import LooplServer
import Testing

/// The `speculative` key of a `server` backend becomes llama-server's `--spec-type` and sizes.
@Suite struct ServerSpeculationTests {
    @Test func ngramDraftingIsPassedAsNgramSimpleWithItsSizes() throws {
        var section = ConfigSection(["speculative": ["type": "ngram", "draftMax": 12, "ngramMax": 5]], context: "backend 'server'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        let line = ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
        #expect(line.contains("--spec-type ngram-simple --spec-ngram-simple-size-n 5 --spec-ngram-simple-size-m 12"), "\(line)")
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
        (#"{"type": "eagle"}"#, "'type' must be \"ngram\" or \"none\""),
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
