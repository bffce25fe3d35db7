import Loopl
@testable import LooplServer
import Testing

/// The `batchSize` key of a `server` backend: a child's prompt chunk per step.
@Suite struct ServerBatchSizeTests {
    @Test func aChildGetsItsBatchAndMicroBatchSize() throws {
        var section = ConfigSection(["batchSize": 48], context: "backend 'server'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        let line = ServerChild.arguments(model: "m.gguf", port: 1, configuration: configuration).joined(separator: " ")
        #expect(line.contains("--batch-size 48 --ubatch-size 48"), "\(line)")
        let defaults = ServerChild.arguments(model: "m.gguf", port: 1, configuration: .init()).joined(separator: " ")
        #expect(!defaults.contains("--batch-size") && !defaults.contains("--ubatch-size"), "llama-server's own sizes by default: \(defaults)")
    }

    @Test(arguments: [
        (["batchSize": 0] as JSONObject, "'batchSize' must be 1 or more"),
        (["url": "http://127.0.0.1:8080", "batchSize": 48] as JSONObject, "'batchSize' is for a child llama-server"),
    ])
    func badBatchSizesAreClearErrors(_ keys: JSONObject, _ message: String) {
        var section = ConfigSection(keys, context: "backend 'server'")
        do {
            _ = try LlamaServerModel.configuration(from: &section)
            Issue.record("accepted: \(keys)")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration && error.message.contains(message), "\(error.message)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
