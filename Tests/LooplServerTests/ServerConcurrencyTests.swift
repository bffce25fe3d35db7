import Foundation
import Loopl
@testable import LooplServer
import LooplTestKit
import Testing

/// Several conversations at once on a real child llama-server (`-np 4`) and the default model.
@Suite(.serialized) struct ServerConcurrencyTests {
    /// `count` conversations, each with a question of its own.
    static func conversation(_ index: Int) -> [Message] {
        let questions = ["Name three colors.", "What is the capital of France?", "Count from one to five.",
                         "Say hello in one short sentence.", "Name a large animal.", "What is two plus two?"]
        return [.system("You are a helpful assistant."), .user(questions[index % questions.count])]
    }

    static func options(_ index: Int, maxTokens: Int = 24) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: maxTokens)
        options.conversation = "conversation-\(index)"
        return options
    }

    /// Runs `body` on a fresh child and always closes it.
    static func withModel(_ configuration: LlamaServerModel.Configuration,
                          _ body: (LlamaServerModel) async throws -> Void) async throws {
        let model = try await LlamaServerModel.start(configuration)
        do {
            try await body(model)
        } catch {
            await model.close()
            throw error
        }
        await model.close()
    }

    /// The checks every backend passes, on a child with four slots.
    @Test(.timeLimit(.minutes(5)))
    func concurrencyConformance() async throws {
        try await Self.withModel(.init(contextLength: 512, parallel: 4, threads: 2)) { model in
            #expect(try await model.contextSize == 512, "a conversation's context is not contextLength")
            try await ModelConformance(model: model).runConcurrency(count: 4)
            #expect(await model.session.inFlight == [0])
        }
    }

    /// Four conversations of two turns at once: each keeps its slot, and its second turn
    /// evaluates only its new tokens.
    @Test(.timeLimit(.minutes(5)))
    func conversationsKeepTheirSlots() async throws {
        // The child's /slots then shows each slot's prompt.
        try await withEnvironment(["LLAMA_SERVER_SLOTS_DEBUG": "1"]) { try await Self.slotsAreKept() }
    }

    private static func slotsAreKept() async throws {
        try await Self.withModel(.init(contextLength: 512, parallel: 4, threads: 2)) { model in
            let suite = ModelConformance(model: model)
            let first = try await Self.concurrently(4) { try await suite.run("first", Self.conversation($0), options: Self.options($0)) }
            let second = try await Self.concurrently(4) { index in
                let messages = Self.conversation(index) + [.assistant(first[index].text), .user("Thank you. And one more?")]
                return try await suite.run("second", messages, options: Self.options(index))
            }
            for index in 0..<4 {
                let before = try #require(first[index].metrics.last)
                let after = try #require(second[index].metrics.last)
                #expect(!second[index].text.isEmpty)
                // The second prompt begins with the first prompt and its answer, all in the slot.
                #expect(after.cachedPromptTokens >= before.promptTokens, "conversation \(index) lost its cache: \(before) then \(after)")
                #expect(after.promptTokens - after.cachedPromptTokens < 40, "conversation \(index) evaluated more than its new turn: \(after)")
            }
            let slots = await (0..<4).asyncMap { await model.session.slot(of: "conversation-\($0)") }
            #expect(Set(slots.compactMap { $0 }).count == 4, "the conversations do not each keep a slot: \(slots)")
            // The server's own view: each slot's prompt is its conversation's.
            let endpoint = try #require(await model.session.currentChild?.endpoint)
            let list = try #require(try await endpoint.fetch("/slots").json.arrayValue)
            #expect(list.count == 4)
            for index in 0..<4 {
                let slot = try #require(slots[index])
                let prompt = list.first { $0["id"]?.intValue == slot }?["prompt"]?.stringValue ?? ""
                #expect(prompt.contains(Self.conversation(index)[1].text), "slot \(slot) does not hold conversation \(index)")
            }
        }
    }

    /// Runs `body` for 0..<count at once; the results in order.
    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for index in 0..<count { group.addTask { (index, try await body(index)) } }
            var results: [Int: T] = [:]
            for try await (index, result) in group { results[index] = result }
            return (0..<count).compactMap { results[$0] }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aKilledChildFailsEveryRequestInFlightAndTheNextStartsANewOne() async throws {
        try await Self.withModel(.init(contextLength: 256, parallel: 4, threads: 2)) { model in
            let pid = try #require(await model.serverProcessID)
            var requests: [Task<Result<Void, any Error>, Never>] = []
            for index in 0..<4 {
                requests.append(try await LlamaServerModelTests.startLongAnswer(model, messages: Self.conversation(index), maxTokens: 200))
            }
            kill(pid, SIGKILL)
            for request in requests {
                guard case .failure(let error) = await request.value else {
                    Issue.record("a request went on after its server was killed")
                    continue
                }
                let typed = error as? LooplError
                #expect(typed?.code == .processFailed && typed?.isEngineLoss == true, "\(error)")
                #expect(typed?.message.contains("signal 9") == true, "\(error)")
            }
            let turn = try await ModelConformance(model: model).run("recover", Self.conversation(0), options: Self.options(0, maxTokens: 4))
            #expect(!turn.text.isEmpty)
            #expect(await model.serverProcessID != pid)
        }
    }

    /// Two real llama-servers and a URL where nothing listens, attached as replicas: four
    /// conversations spread two and two, each one's second turn goes to the server that holds
    /// its first, and the dead URL costs no request.
    @Test(.timeLimit(.minutes(5)))
    func replicasOfRealServers() async throws {
        // Their /slots then show each slot's prompt.
        var servers: [ChildProcess] = []
        defer { for server in servers { server.signal(SIGKILL) } }
        var endpoints: [ServerEndpoint] = []
        for _ in 0..<2 {
            let plain = try await PlainServer.start(["-c", "1024", "-np", "2", "-t", "1"], environment: ["LLAMA_SERVER_SLOTS_DEBUG": "1"])
            servers.append(plain.process)
            endpoints.append(plain.endpoint)
        }
        let dead = try #require(URL(string: "http://127.0.0.1:\(try FreePort.find())"))
        let model = try await LlamaServerModel.start(.init(target: .replicas(urls: [dead] + endpoints.map(\.baseURL), apiKey: nil)))
        let suite = ModelConformance(model: model)
        let first = try await Self.concurrently(4) { try await suite.run("first", Self.conversation($0), options: Self.options($0)) }
        let second = try await Self.concurrently(4) { index in
            let messages = Self.conversation(index) + [.assistant(first[index].text), .user("Thank you. And one more?")]
            return try await suite.run("second", messages, options: Self.options(index))
        }
        await model.close()
        for index in 0..<4 {
            let before = try #require(first[index].metrics.last)
            let after = try #require(second[index].metrics.last)
            #expect(after.cachedPromptTokens >= before.promptTokens, "conversation \(index) lost its cache: \(before) then \(after)")
        }
        var held: [Set<Int>] = []
        for endpoint in endpoints {
            let slots = try #require(try await endpoint.fetch("/slots").json.arrayValue)
            held.append(Set((0..<4).filter { index in
                slots.contains { $0["prompt"]?.stringValue?.contains(Self.conversation(index)[1].text) == true }
            }))
        }
        #expect(held[0].count == 2 && held[1].count == 2 && held[0].isDisjoint(with: held[1]),
                "the conversations did not spread two and two: \(held)")
        for server in servers { #expect(server.exitStatus == nil, "closing the model stopped an attached server") }
    }

    @Test(.timeLimit(.minutes(5)))
    func pastTheQueueBoundARequestIsBusy() async throws {
        try await Self.withModel(.init(contextLength: 1024, parallel: 1, maxQueue: 1, threads: 2)) { model in
            try await ModelConformance(model: model).checkQueueBoundGivesBusy(parallel: 1, maxQueue: 1)
        }
    }
}

extension Sequence {
    /// The results of `transform` on each element, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
