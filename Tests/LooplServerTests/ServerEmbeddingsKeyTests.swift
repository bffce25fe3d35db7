import Loopl
@testable import LooplServer
import Testing

/// The `embeddings` and `pooling` keys of a `server` backend: a child in embeddings mode only when asked.
@Suite struct ServerEmbeddingsKeyTests {
    static func line(_ keys: JSONObject) throws -> String {
        var section = ConfigSection(keys, context: "backend 'server'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        return ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
    }

    @Test func aChildEmbedsOnlyWithTheKey() throws {
        #expect(!(try Self.line([:])).contains("--embeddings"))
        // No GGUF to read: mean, and a batch of the context, since llama-server evaluates an input in one.
        let on = try Self.line(["embeddings": true, "contextLength": 512])
        #expect(on.contains("--embeddings --pooling mean --batch-size 512 --ubatch-size 512"), "\(on)")
        let last = try Self.line(["embeddings": true, "pooling": "last", "batchSize": 64])
        #expect(last.contains("--embeddings --pooling last") && last.contains("--batch-size 64 --ubatch-size 64"), "\(last)")
    }

    @Test func poolingIsAChildsAndOneOfThree() {
        for keys: JSONObject in [["pooling": "max"], ["url": "http://127.0.0.1:8080", "pooling": "mean"]] {
            var section = ConfigSection(keys, context: "backend 'server'")
            #expect(throws: LooplError.self, "\(keys)") { try LlamaServerModel.configuration(from: &section) }
        }
    }
}
