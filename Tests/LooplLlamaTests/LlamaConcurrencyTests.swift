import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Synchronization
import Testing

/// Several requests at once on one in-process model: one decode loop, a KV sequence each.
@Suite(.serialized) struct LlamaConcurrencyTests {
    static func load(context: Int = 512, parallel: Int = 4, maxQueue: Int = 64) throws -> LlamaModel {
        try LlamaModel(configuration: .init(contextLength: context, threads: 2, parallel: parallel, maxQueue: maxQueue))
    }

    static let questions: [[Message]] = [
        [.system("You are a helpful assistant."), .user("Name three colours of the rainbow.")],
        [.system("You are a helpful assistant."), .user("Write one sentence about the sea.")],
        [.system("You are a helpful assistant."), .user("What is the capital of France?")],
        [.system("You are a helpful assistant."), .user("Give me a short tip for sleeping well.")],
    ]

    static func exactly(_ tokens: Int, conversation: String? = nil) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.ignoreEndOfGeneration = true
        options.conversation = conversation
        return options
    }

    @Test(.timeLimit(.minutes(5)))
    func fourConversationsAtOnceStreamWhatEachStreamsAlone() async throws {
        let suite = ModelConformance(model: try Self.load())
        var alone: [String] = []
        for (index, prompt) in Self.questions.enumerated() {
            alone.append(try await suite.run("alone", prompt, options: Self.exactly(24, conversation: "alone-\(index)")).text)
        }
        let together = try await withThrowingTaskGroup(of: (Int, ModelConformance.Turn, ContinuousClock.Instant).self) { group in
            for (index, prompt) in Self.questions.enumerated() {
                group.addTask {
                    let turn = try await suite.run("together", prompt, options: Self.exactly(24, conversation: "together-\(index)"))
                    return (index, turn, .now)
                }
            }
            var turns: [(Int, ModelConformance.Turn, ContinuousClock.Instant)] = []
            for try await result in group { turns.append(result) }
            return turns.sorted { $0.0 < $1.0 }
        }
        for (index, turn, _) in together {
            #expect(!alone[index].isEmpty)
            #expect(turn.text == alone[index], "conversation \(index)")
            #expect(turn.metrics.last?.generatedTokens == 24)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingOneOfFourLeavesTheOthersToFinish() async throws {
        let model = try Self.load()
        let suite = ModelConformance(model: model)
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let victim = Task {
            var streamed = 0
            for try await event in model.generate(messages: Self.questions[0], tools: [], options: Self.exactly(400)) {
                if case .text = event {
                    streamed += 1
                    if streamed == 3 { startedContinuation.yield() }
                }
            }
        }
        let others = Task {
            try await withThrowingTaskGroup(of: Metrics?.self) { group in
                for prompt in Self.questions.dropFirst() {
                    group.addTask { try await suite.run("other", prompt, options: Self.exactly(32)).metrics.last }
                }
                var finals: [Metrics?] = []
                for try await metrics in group { finals.append(metrics) }
                return finals
            }
        }
        for await _ in started { break }
        victim.cancel()
        _ = await victim.result
        let finals = try await others.value
        #expect(finals.count == 3)
        for metrics in finals {
            #expect(metrics?.finished == true)
            #expect(metrics?.generatedTokens == 32)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func oneOfFourOverflowingFailsAlone() async throws {
        let model = try Self.load()
        let suite = ModelConformance(model: model)
        let size = try await model.contextSize
        #expect(size == 512, "contextSize is each conversation's length")
        let huge: [Message] = [.user(String(repeating: "hello ", count: size * 2))]
        let outcomes = await withTaskGroup(of: (Bool, Result<ModelConformance.Turn, any Error>).self) { group in
            for (isHuge, prompt) in [(true, huge)] + Self.questions.dropFirst().map({ (false, $0) }) {
                group.addTask {
                    do { return (isHuge, .success(try await suite.run("overflow", prompt, options: .greedy(maxTokens: 16)))) }
                    catch { return (isHuge, .failure(error)) }
                }
            }
            var outcomes: [(Bool, Result<ModelConformance.Turn, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        for (isHuge, outcome) in outcomes {
            switch outcome {
            case .success(let turn):
                #expect(!isHuge, "a prompt over the context was answered")
                #expect(turn.metrics.last?.finished == true)
            case .failure(let error):
                #expect(isHuge, "a prompt that fits failed: \(error)")
                #expect((error as? LooplError)?.code == .contextOverflow)
            }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func pastTheQueueBoundARequestIsBusyAtOnce() async throws {
        let model = try Self.load(parallel: 2, maxQueue: 1)
        let suite = ModelConformance(model: model)
        let (running, runningContinuation) = AsyncStream<Void>.makeStream()
        let holders = Self.questions.prefix(2).map { prompt in
            Task {
                var announced = false
                for try await event in model.generate(messages: prompt, tools: [], options: Self.exactly(400)) {
                    if case .text = event, !announced {
                        announced = true
                        runningContinuation.yield()
                    }
                }
            }
        }
        var started = 0
        for await _ in running {
            started += 1
            if started == 2 { break }
        }
        let waiting = Task { try await suite.run("waiting", ModelConformance.greeting, options: .greedy(maxTokens: 4)) }
        try await Task.sleep(for: .milliseconds(300))
        let refusal = ContinuousClock.now
        await #expect(throws: LooplError.self) {
            do {
                _ = try await suite.run("refused", ModelConformance.greeting, options: .greedy(maxTokens: 4))
            } catch let error as LooplError {
                #expect(error.code == .busy)
                throw error
            }
        }
        #expect(ContinuousClock.now - refusal < .seconds(5))
        for holder in holders { holder.cancel() }
        #expect(try await waiting.value.metrics.last?.finished == true)
    }

    /// Conversations interleaved keep their own cells: each one's second request evaluates only
    /// what was added, although the others ran in between.
    @Test(.timeLimit(.minutes(5)))
    func interleavedConversationsEvaluateOnlyTheirNewTokens() async throws {
        let suite = ModelConformance(model: try Self.load())
        var first: [ModelConformance.Turn] = []
        for (index, prompt) in Self.questions.enumerated() {
            first.append(try await suite.run("first", prompt, options: Self.exactly(8, conversation: "c\(index)")))
        }
        for (index, prompt) in Self.questions.enumerated() {
            let longer = prompt + [.assistant(first[index].text), .user("Thank you. Once more, shorter.")]
            let turn = try await suite.run("second", longer, options: Self.exactly(8, conversation: "c\(index)"))
            let before = try #require(first[index].metrics.last)
            let metrics = try #require(turn.metrics.last)
            #expect(metrics.cachedPromptTokens >= before.promptTokens - 1, "conversation \(index): \(metrics)")
        }
    }

    /// With every sequence held by a conversation, a new one takes the least recently used's cells.
    @Test(.timeLimit(.minutes(5)))
    func aNewConversationTakesTheLeastRecentlyUsedCells() async throws {
        let suite = ModelConformance(model: try Self.load(parallel: 2))
        let options = { (name: String) in Self.exactly(4, conversation: name) }
        let a = try #require(try await suite.run("a", Self.questions[0], options: options("a")).metrics.last)
        _ = try await suite.run("b", Self.questions[1], options: options("b"))
        _ = try await suite.run("c", Self.questions[2], options: options("c"))
        let b = try #require(try await suite.run("b", Self.questions[1], options: options("b")).metrics.last)
        #expect(b.cachedPromptTokens == b.promptTokens - 1, "b's cells were given up before a's")
        let again = try #require(try await suite.run("a", Self.questions[0], options: options("a")).metrics.last)
        #expect(again.cachedPromptTokens < a.promptTokens - 1, "a's cells outlived two newer conversations in two sequences")
    }

    /// A long prompt arriving while another request streams is evaluated in chunks between that
    /// stream's tokens, and the stream goes on meanwhile.
    @Test(.timeLimit(.minutes(5)))
    func aLongArrivalIsEvaluatedInChunksBetweenTheRunningStreamsTokens() async throws {
        let model = try Self.load(context: 2048, parallel: 2)
        let steps = Mutex<[LlamaModel.Step]>([])
        model.observeSteps { step in steps.withLock { $0.append(step) } }
        let suite = ModelConformance(model: model)
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let runner = Task {
            var streamed = 0
            for try await event in model.generate(messages: Self.questions[0], tools: [], options: Self.exactly(160)) {
                if case .text = event {
                    streamed += 1
                    if streamed == 4 { startedContinuation.yield() }
                }
            }
        }
        for await _ in started { break }
        let long: [Message] = [.user(String(repeating: "The sea is deep and the sky is wide. ", count: 120))]
        let arrival = try await suite.run("arrival", long, options: .greedy(maxTokens: 2))
        try await runner.value
        model.observeSteps(nil)
        let prompt = try #require(arrival.metrics.last).promptTokens
        #expect(prompt > 3 * DecodeLoop.promptChunk, "the prompt is too short to need chunks: \(prompt) tokens")
        let recorded = steps.withLock { $0 }
        let mixed = recorded.filter { $0.generating > 0 && $0.promptTokens > 0 }
        #expect(mixed.count >= 3, "the arrival's prompt was not evaluated beside the running stream: \(mixed)")
        #expect(mixed.allSatisfy { $0.promptTokens <= DecodeLoop.promptChunk })
        let latencies = mixed.map(\.duration).sorted()
        let p95 = latencies[min(latencies.count - 1, latencies.count * 95 / 100)]
        print("inter-token latency of the running stream while \(prompt) prompt tokens loaded: p95 \(p95), \(mixed.count) steps")
    }

    /// close() while requests stream ends each of them with `closed`, and later ones too.
    @Test(.timeLimit(.minutes(5)))
    func closingEndsEveryRequestUnderWay() async throws {
        let model = try Self.load()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let streams = Self.questions.prefix(2).map { prompt in
            Task { () -> LooplError.Code? in
                do {
                    var announced = false
                    for try await event in model.generate(messages: prompt, tools: [], options: Self.exactly(400)) {
                        if case .text = event, !announced {
                            announced = true
                            startedContinuation.yield()
                        }
                    }
                    return nil
                } catch {
                    return (error as? LooplError)?.code
                }
            }
        }
        var running = 0
        for await _ in started {
            running += 1
            if running == 2 { break }
        }
        await model.close()
        for stream in streams { #expect(await stream.value == .closed) }
        await #expect(throws: LooplError.self) {
            _ = try await ModelConformance(model: model).run("closed", ModelConformance.greeting, options: .greedy(maxTokens: 4))
        }
    }
}
