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

    @Test(.timeLimit(.minutes(5)))
    func fourConversationsAtOnce() async throws {
        // The child's /slots then shows each slot's prompt.
        setenv("LLAMA_SERVER_SLOTS_DEBUG", "1", 1)
        defer { unsetenv("LLAMA_SERVER_SLOTS_DEBUG") }
        try await Self.withModel(.init(contextLength: 512, parallel: 4, threads: 2)) { model in
            #expect(try await model.contextSize == 512, "a conversation's context is not contextLength")
            let suite = ModelConformance(model: model)
            let sequential = try await (0..<4).asyncMap { try await suite.run("sequential", Self.conversation($0), options: Self.options($0)) }
            let concurrent = try await withThrowingTaskGroup(of: (Int, ModelConformance.Turn).self) { group in
                for index in 0..<4 {
                    group.addTask { (index, try await suite.run("concurrent", Self.conversation(index), options: Self.options(index))) }
                }
                return try await group.reduce(into: [Int: ModelConformance.Turn]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<4 {
                #expect(!sequential[index].text.isEmpty)
                #expect(concurrent[index]?.text == sequential[index].text, "conversation \(index) differs when served with others")
                // Each conversation kept its slot: its second request evaluated only what was new.
                let metrics = try #require(concurrent[index]?.metrics.last)
                let first = try #require(sequential[index].metrics.last)
                #expect(metrics.cachedPromptTokens >= first.promptTokens - 1, "conversation \(index) lost its cache: \(metrics)")
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
                let question = Self.conversation(index)[1].text
                #expect(prompt.contains(question), "slot \(slot) does not hold conversation \(index)")
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingOneOfFourLeavesTheOthers() async throws {
        try await Self.withModel(.init(contextLength: 512, parallel: 4, threads: 2)) { model in
            let pid = try #require(await model.serverProcessID)
            var options = Self.options(0, maxTokens: 400)
            options.ignoreEndOfGeneration = true
            let long = options
            let started = AsyncStream<Void>.makeStream()
            let victim = Task { () -> Int in
                var texts = 0
                for try await event in model.generate(messages: Self.conversation(0), tools: [], options: long) {
                    if case .text = event { texts += 1; if texts == 1 { started.continuation.yield() } }
                }
                return texts
            }
            let suite = ModelConformance(model: model)
            let others = (1..<4).map { index in
                Task { try await suite.run("others", Self.conversation(index), options: Self.options(index)) }
            }
            var iterator = started.stream.makeAsyncIterator()
            _ = await iterator.next()
            victim.cancel()
            let cut = try? await victim.value
            #expect((cut ?? 0) < 400)
            for other in others {
                let turn = try await other.value
                #expect(!turn.text.isEmpty && turn.metrics.last?.finished == true)
            }
            #expect(await model.serverProcessID == pid, "the child was restarted")
            let after = try await suite.run("after", Self.conversation(0), options: Self.options(0, maxTokens: 4))
            #expect(!after.text.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aKilledChildFailsEveryRequestInFlightAndTheNextStartsANewOne() async throws {
        try await Self.withModel(.init(contextLength: 256, parallel: 4, threads: 2)) { model in
            let pid = try #require(await model.serverProcessID)
            var options = GenerationOptions.greedy(maxTokens: 200)
            options.ignoreEndOfGeneration = true
            let long = options
            let started = AsyncStream<Void>.makeStream()
            let requests = (0..<4).map { index in
                Task { () -> Result<Void, any Error> in
                    do {
                        var signalled = false
                        for try await event in model.generate(messages: Self.conversation(index), tools: [], options: long) {
                            if case .text = event, !signalled { signalled = true; started.continuation.yield() }
                        }
                        return .success(())
                    } catch {
                        started.continuation.yield()
                        return .failure(error)
                    }
                }
            }
            var iterator = started.stream.makeAsyncIterator()
            for _ in 0..<4 { _ = await iterator.next() }
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

    @Test(.timeLimit(.minutes(5)))
    func oneOfFourOverflowingFailsAlone() async throws {
        try await Self.withModel(.init(contextLength: 256, parallel: 4, threads: 2)) { model in
            let size = try await model.contextSize
            let suite = ModelConformance(model: model)
            let huge: [Message] = [.user(String(repeating: "hello ", count: size * 2))]
            let results = await withTaskGroup(of: (Int, Result<ModelConformance.Turn, any Error>).self) { group in
                for index in 0..<4 {
                    group.addTask {
                        do {
                            let messages = index == 2 ? huge : Self.conversation(index)
                            return (index, .success(try await suite.run("overflow", messages, options: Self.options(index, maxTokens: 16))))
                        } catch { return (index, .failure(error)) }
                    }
                }
                var results: [Int: Result<ModelConformance.Turn, any Error>] = [:]
                for await (index, result) in group { results[index] = result }
                return results
            }
            for index in 0..<4 {
                switch results[index] {
                case .success(let turn)?:
                    #expect(index != 2, "a prompt of \(size * 2) words was answered")
                    #expect(!turn.text.isEmpty)
                case .failure(let error)?:
                    #expect(index == 2 && (error as? LooplError)?.code == .contextOverflow, "request \(index): \(error)")
                case nil:
                    Issue.record("request \(index) did not end")
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func pastTheQueueBoundARequestIsBusy() async throws {
        try await Self.withModel(.init(contextLength: 256, parallel: 1, maxQueue: 1, threads: 2)) { model in
            var options = GenerationOptions.greedy(maxTokens: 200)
            options.ignoreEndOfGeneration = true
            let long = options
            let started = AsyncStream<Void>.makeStream()
            let running = (0..<2).map { _ in
                Task {
                    for try await event in model.generate(messages: ModelConformance.greeting, tools: [], options: long) {
                        if case .text = event { started.continuation.yield() }
                    }
                }
            }
            var iterator = started.stream.makeAsyncIterator()
            _ = await iterator.next()
            #expect(model.session.queue.running == 1 && model.session.queue.waiting == 1)
            let start = ContinuousClock.now
            await #expect { _ = try await ModelConformance(model: model).run("busy", ModelConformance.greeting, options: .greedy(maxTokens: 4)) }
                throws: { ($0 as? LooplError)?.code == .busy }
            #expect(ContinuousClock.now - start < .seconds(5), "busy did not come at once")
            for task in running { task.cancel() }
            for task in running { _ = await task.result }
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
