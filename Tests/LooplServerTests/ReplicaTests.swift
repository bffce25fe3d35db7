import Foundation
import Loopl
@testable import LooplServer
import LooplTestKit
import Synchronization
import Testing

/// Attached replicas (`urls`) against fake servers: how requests spread, and what a replica
/// that is down costs.
@Suite(.serialized) struct ReplicaTests {
    /// A fake llama-server that answers every generation with its `name`; its health check
    /// fails while `healthy` says so.
    static func replica(_ name: String, healthy: @escaping @Sendable () -> Bool = { true }) throws -> FakeServer {
        try FakeServer { request in
            if request.line.hasPrefix("GET /health") {
                return healthy() ? FakeServer.json(200, #"{"status":"ok"}"#)
                    : FakeServer.json(503, #"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#)
            }
            if request.line.hasPrefix("GET /props") {
                return FakeServer.json(200, #"{"default_generation_settings":{"n_ctx":512},"total_slots":2}"#)
            }
            return FakeServer.events([FakeServer.content(name), #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#, "[DONE]"])
        }
    }

    static func model(_ servers: [URL], backoff: Duration = .seconds(1)) async throws -> LlamaServerModel {
        try await LlamaServerModel.start(.init(target: .replicas(urls: servers, apiKey: nil), replicaBackoff: backoff))
    }

    /// Who answered each of `count` requests in a row.
    static func answers(_ model: LlamaServerModel, count: Int, conversation: String? = nil) async throws -> [String] {
        var names: [String] = []
        for _ in 0..<count {
            var options = GenerationOptions.greedy(maxTokens: 4)
            options.conversation = conversation
            names.append(try await ModelConformance(model: model, requestBound: .seconds(30))
                .run("replica", ModelConformance.greeting, options: options).text)
        }
        return names
    }

    /// A URL where nothing listens.
    static func deadURL() throws -> URL {
        try #require(URL(string: "http://127.0.0.1:\(try FreePort.find())"))
    }

    @Test(.timeLimit(.minutes(1)))
    func requestsSpreadAndAConversationSticksToItsReplica() async throws {
        let a = try Self.replica("A")
        let b = try Self.replica("B")
        defer { a.stop(); b.stop() }
        let model = try await Self.model([a.url, b.url])
        #expect(try await Self.answers(model, count: 4) == ["A", "B", "A", "B"])
        let first = try await Self.answers(model, count: 3, conversation: "one")
        #expect(Set(first).count == 1, "a conversation moved between healthy replicas: \(first)")
        let second = try await Self.answers(model, count: 3, conversation: "two")
        #expect(Set(second).count == 1 && second != first, "two conversations did not spread: \(first) \(second)")
        #expect(try await model.contextSize == 512)
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aReplicaThatRefusesConnectionsIsSkippedBeforeTheFirstToken() async throws {
        let a = try Self.replica("A")
        let b = try Self.replica("B")
        // Nothing listens at the first URL from the start.
        let model = try await Self.model([try Self.deadURL(), a.url, b.url], backoff: .seconds(30))
        #expect(try await Self.answers(model, count: 2).sorted() == ["A", "B"])
        // A goes away after its probe: its requests go to B without an error.
        a.stop()
        #expect(try await Self.answers(model, count: 4, conversation: "c") == ["B", "B", "B", "B"])
        #expect(try await Self.answers(model, count: 2) == ["B", "B"])
        #expect(await model.session.inFlight == [0, 0, 0])
        b.stop()
        await #expect { _ = try await Self.answers(model, count: 1) } throws: { error in
            let typed = error as? LooplError
            return typed?.code == .connectionFailed && typed?.message.contains("None of the 3 servers") == true
        }
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aReplicaThatFailsItsHealthCheckIsTriedAgainAfterTheBackOff() async throws {
        let healthy = Atomic<Bool>(false)
        let a = try Self.replica("A") { healthy.load(ordering: .relaxed) }
        let b = try Self.replica("B")
        defer { a.stop(); b.stop() }
        let model = try await Self.model([a.url, b.url], backoff: .milliseconds(300))
        #expect(try await Self.answers(model, count: 3) == ["B", "B", "B"], "a replica that is loading was used")
        healthy.store(true, ordering: .relaxed)
        var names: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while !names.contains("A"), ContinuousClock.now < deadline {
            names += try await Self.answers(model, count: 1)
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(names.contains("A"), "the replica was not tried again after its back-off: \(names)")
        await model.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func theConfigurationReadsUrlsParallelAndMaxQueue() throws {
        var section = ConfigSection(["urls": ["http://10.0.0.5:8000", "http://10.0.0.6:8000"], "apiKey": "k",
                                     "parallel": 8, "maxQueue": 16], context: "backend 'gpu'")
        let configuration = try LlamaServerModel.configuration(from: &section)
        #expect(configuration.target.urls.map(\.absoluteString) == ["http://10.0.0.5:8000", "http://10.0.0.6:8000"])
        #expect(configuration.target.apiKey == "k" && configuration.parallel == 8 && configuration.maxQueue == 16)
        var child = ConfigSection([:], context: "backend 'server'")
        let defaults = try LlamaServerModel.configuration(from: &child)
        #expect(defaults.parallel == 4 && defaults.maxQueue == 64)
        #expect(ServerChild.arguments(model: "m.gguf", port: 1, configuration: .init(contextLength: 1024, parallel: 3))
            .joined(separator: " ").contains("-np 3 --no-kv-unified --cache-ram 0 -t"))
        #expect(ServerChild.arguments(model: "m.gguf", port: 1, configuration: .init(contextLength: 1024, parallel: 3))
            .joined(separator: " ").hasSuffix("-c 3072"))
        for bad: JSONObject in [["url": "http://a:1", "urls": ["http://b:1"]], ["urls": []], ["model": "m", "urls": ["http://b:1"]], ["parallel": 0]] {
            var section = ConfigSection(bad, context: "backend 'bad'")
            #expect(throws: LooplError.self) { _ = try LlamaServerModel.configuration(from: &section) }
        }
    }
}
