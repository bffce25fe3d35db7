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

    static let questions = Array(ModelConformance.questions.prefix(4))

    static func exactly(_ tokens: Int, conversation: String? = nil) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        options.conversation = conversation
        return options
    }

    /// The shared checks, with whole answers compared: a conversation batched with others gives
    /// the very tokens it gives alone (each sequence attends to a KV stream of its own). The step
    /// log proves the batching: some step's batch decoded the next token of all four sequences.
    /// It shows the cancel too: within a few steps of it, one sequence fewer generates.
    @Test(.timeLimit(.minutes(5)))
    func concurrencyConformance() async throws {
        let model = try Self.load()
        let steps = Mutex<[LlamaModel.Step]>([])
        let cancelledAt = Mutex<Int?>(nil)
        model.observeSteps { step in steps.withLock { $0.append(step) } }
        var suite = ModelConformance(model: model)
        suite.onCancel = { cancelledAt.withLock { $0 = steps.withLock(\.count) } }
        try await suite.runConcurrency(count: 4)
        model.observeSteps(nil)
        let recorded = steps.withLock { $0 }
        let widest = recorded.map(\.generating).max() ?? 0
        #expect(widest == 4, "no step decoded four sequences at once; the most at once was \(widest)")
        let cancel = try #require(cancelledAt.withLock { $0 })
        let after = recorded[cancel...].prefix { $0.generating == 4 }.count
        #expect(after <= 3, "\(after) steps after the cancel still decoded four sequences: the cancelled one went on")
    }

    /// Each step records what its batch decoded: four 24-token streams at once share their
    /// steps (one step decodes the next token of all four sequences), so fewer than 2 × 24 steps
    /// decode a generated token, where a loop that decodes one stream a step needs about 4 × 24.
    @Test(.timeLimit(.minutes(5)))
    func fourStreamsTogetherShareTheirDecodeSteps() async throws {
        let model = try Self.load()
        let suite = ModelConformance(model: model)
        let steps = Mutex<[LlamaModel.Step]>([])
        model.observeSteps { step in steps.withLock { $0.append(step) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, prompt) in Self.questions.enumerated() {
                group.addTask { _ = try await suite.run("stream \(index)", prompt, options: Self.exactly(24, conversation: "s\(index)")) }
            }
            try await group.waitForAll()
        }
        model.observeSteps(nil)
        let decoding = steps.withLock { $0 }.filter { $0.generating > 0 }
        let together = decoding.map { Set($0.batch.filter { $0.kind == .generated }.map(\.sequence)) }
        #expect(together.contains { $0.count == 4 }, "no step decoded the tokens of four sequences: \(together)")
        #expect(Set(together.flatMap { $0 }).count == 4, "\(together)")
        #expect(decoding.count < 2 * 24, "four 24-token streams took \(decoding.count) decode steps")
    }

    @Test(.timeLimit(.minutes(5)))
    func pastTheQueueBoundARequestIsBusyAtOnce() async throws {
        try await ModelConformance(model: try Self.load(parallel: 2, maxQueue: 1)).checkQueueBoundGivesBusy(parallel: 2, maxQueue: 1)
    }

    /// contextSize is each conversation's length, whatever `parallel` is.
    @Test(.timeLimit(.minutes(2)))
    func contextSizeIsPerConversation() async throws {
        #expect(try await Self.load(parallel: 3).contextSize == 512)
        #expect(try await Self.load(context: 300, parallel: 1).contextSize == 512, "llama.cpp rounds a context up to 256")
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

    /// Two 96-token streams at once, and a long prompt arriving once both have decoded 4 tokens
    /// together when `arrival` is given: the streams' texts, every step, and the arrival's sequence.
    static func streamsWithArrival(_ model: LlamaModel, arrival: [Message]?) async throws
        -> (texts: [String], steps: [LlamaModel.Step], arrival: Int?) {
        let suite = ModelConformance(model: model)
        let steps = Mutex<[LlamaModel.Step]>([])
        let (together, signal) = AsyncStream<Void>.makeStream()
        model.observeSteps { step in
            let both = steps.withLock { steps in
                steps.append(step)
                return steps.count { $0.generating == 2 }
            }
            if both == 4 { signal.yield() }
        }
        defer { model.observeSteps(nil) }
        async let texts = withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<2 {
                group.addTask {
                    (index, try await suite.run("stream \(index)", Self.questions[index], options: Self.exactly(96, conversation: "s\(index)")).text)
                }
            }
            var texts = ["", ""]
            for try await (index, text) in group { texts[index] = text }
            return texts
        }
        var arrived: Int?
        if let arrival {
            for await _ in together { break }
            let streams = Set(steps.withLock { $0 }.flatMap { $0.batch.filter { $0.kind == .generated }.map(\.sequence) })
            _ = try await suite.run("arrival", arrival, options: .greedy(maxTokens: 2))
            arrived = steps.withLock { $0 }.flatMap(\.batch).first { $0.kind == .prompt && !streams.contains($0.sequence) }?.sequence
        }
        return (try await texts, steps.withLock { $0 }, arrived)
    }

    /// A long prompt arriving while two streams generate is evaluated in chunks, each in a step
    /// that also decodes the next token of both streams (counted in the steps' records), and the
    /// streams write the very text they write without it.
    @Test(.timeLimit(.minutes(8)))
    func aLongArrivalIsEvaluatedInChunksBesideTheRunningStreams() async throws {
        let model = try Self.load(context: 2048, parallel: 3)
        let alone = try await Self.streamsWithArrival(model, arrival: nil)
        let long: [Message] = [.user(String(repeating: "The sea is deep and the sky is wide. ", count: 70))]
        let run = try await Self.streamsWithArrival(model, arrival: long)
        #expect(run.texts == alone.texts, "a stream wrote another text while the long prompt loaded")
        let arrival = try #require(run.arrival)
        let chunks = run.steps.indices.filter { index in run.steps[index].batch.contains { $0.kind == .prompt && $0.sequence == arrival } }
        let lastTogether = try #require(run.steps.lastIndex { $0.generating == 2 })
        let beside = chunks.filter { $0 <= lastTogether }
        let evaluated = chunks.map { index in run.steps[index].batch.first { $0.sequence == arrival }?.tokens ?? 0 }.reduce(0, +)
        #expect(evaluated > 600, "the prompt is too short to need chunks: \(evaluated) tokens")
        #expect(beside.count >= 4, "the arrival's \(evaluated) tokens were evaluated in \(beside.count) steps beside the streams, as whole batches would be")
        #expect(beside.allSatisfy { run.steps[$0].generating == 2 }, "a step evaluated the arrival's prompt without the streams' tokens while they generated")
        // Each chunk but the last goes in a pass of its own before the streams' tokens, which then
        // attend over their own depth rather than the prompt's.
        #expect(beside.dropLast().allSatisfy { index in
            run.steps[index].chunkTokens == run.steps[index].batch.first { $0.sequence == arrival }?.tokens
        }, "a chunk was evaluated in the streams' pass")
        #expect(zip(beside.dropFirst(), beside).allSatisfy { $0 - $1 == 1 },
                "the streams' steps between two chunks evaluated nothing of the prompt: \(beside)")
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

    /// Two sequences decoding with an idle one between them (padded in the batch, so that they
    /// stay in one pass): their answers are their own, and the idle one's cells are untouched.
    @Test(.timeLimit(.minutes(5)))
    func anIdleSequenceBetweenTwoDecodingOnesKeepsItsCells() async throws {
        let suite = ModelConformance(model: try Self.load(parallel: 3))
        var turns: [ModelConformance.Turn] = []
        for (index, name) in ["a", "b", "c"].enumerated() {
            turns.append(try await suite.run(name, Self.questions[index], options: Self.exactly(8, conversation: name)))
        }
        let first = turns
        let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in [0, 2] {
                group.addTask {
                    let longer = Self.questions[index] + [.assistant(first[index].text), .user("Say it again, shorter.")]
                    let turn = try await suite.run("outer", longer, options: Self.exactly(16, conversation: ["a", "b", "c"][index]))
                    return (index, turn.text)
                }
            }
            var texts: [Int: String] = [:]
            for try await (index, text) in group { texts[index] = text }
            return texts
        }
        let b = try await suite.run("b", Self.questions[1], options: Self.exactly(8, conversation: "b"))
        #expect(b.text == first[1].text)
        #expect(b.metrics.last?.cachedPromptTokens == (b.metrics.last?.promptTokens ?? 0) - 1)
        for index in [0, 2] {
            let longer = Self.questions[index] + [.assistant(first[index].text), .user("Say it again, shorter.")]
            let again = try await suite.run("again", longer, options: Self.exactly(16, conversation: ["a", "b", "c"][index]))
            #expect(again.text == together[index], "conversation \(index)")
        }
    }
}
