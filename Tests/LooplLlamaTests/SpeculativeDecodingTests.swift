import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Synchronization
import Testing

/// Prompt-lookup drafts verified in the batch: greedy output is the same with drafting on and off,
/// alone and batched, and a cancelled request stops although its steps verify drafts.
@Suite(.serialized) struct SpeculativeDecodingTests {
    static let passage = """
        The harbour town woke before the sun. Fishermen carried nets down the stone steps, the baker \
        opened his shutters, and the ferry sounded its horn twice across the grey water. On the hill \
        above the square stood the old lighthouse, painted white and red, its lamp long replaced by a \
        small electric beacon that blinked every four seconds. Children said a keeper still lived in \
        the tower, though nobody had seen him for years. Every morning a basket of bread was left at \
        the foot of the stairs, and every evening the basket was gone.
        """

    static let copy: [Message] = [
        .user("Repeat the following passage exactly, word for word, and write nothing else.\n\n\"\"\"\n\(passage)\n\"\"\"")
    ]
    static let free: [Message] = [.user("Write a short story about a fox who learns to sail.")]

    /// A model with the keys drafting uses by default, with drafting on or off.
    static func load(_ speculative: Speculation, parallel: Int = 1) throws -> LlamaModel {
        try LlamaModel(configuration: .init(contextLength: 1024, threads: 2, parallel: parallel, speculative: speculative,
                                            cacheTypeK: .q8_0))
    }

    /// Greedy, `tokens` regardless of the end of the turn.
    static func options(_ tokens: Int) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        return options
    }

    /// The default drafting.
    static let drafting = Speculation(kind: .ngram)

    /// The texts of `prompts`, all sent at once, the tokens generated in all and the drafted ones accepted.
    static func answers(_ model: LlamaModel, _ prompts: [[Message]], tokens: Int, temperature: Double = 0)
        async throws -> (texts: [String], generated: Int, accepted: Int, drafted: Int)
    {
        let suite = ModelConformance(model: model)
        return try await withThrowingTaskGroup(of: (Int, ModelConformance.Turn).self) { group in
            for (index, prompt) in prompts.enumerated() {
                var turnOptions = options(tokens)
                if temperature > 0 { (turnOptions.temperature, turnOptions.seed) = (temperature, 7) }
                group.addTask { (index, try await suite.run("answer \(index)", prompt, options: turnOptions)) }
            }
            var texts = Array(repeating: "", count: prompts.count)
            var generated = 0, accepted = 0, drafted = 0
            for try await (index, turn) in group {
                texts[index] = turn.text
                generated += turn.metrics.last?.generatedTokens ?? 0
                accepted += turn.metrics.last?.acceptedDraftTokens ?? 0
                drafted += turn.metrics.last?.draftTokens ?? 0
            }
            return (texts, generated, accepted, drafted)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func greedyOutputIsTheSameWithDraftingOnAndOffAlone() async throws {
        // The copy's 100 tokens are the passage (about 110); the story's 256 go on past its end.
        for (prompt, tokens) in [(Self.copy, 100), (Self.free, 256)] {
            let plain = try await Self.answers(try Self.load(.none), [prompt], tokens: tokens)
            let model = try Self.load(Self.drafting)
            let steps = Mutex(0)
            model.observeSteps { _ in steps.withLock { $0 += 1 } }
            let drafted = try await Self.answers(model, [prompt], tokens: tokens)
            #expect(drafted.texts == plain.texts)
            // Each step gives one token and the drafted ones that held (the last step's too); the
            // observer sees the last step just after the answer ends.
            let expected = drafted.generated - drafted.accepted
            let deadline = ContinuousClock.now + .seconds(2)
            while steps.withLock({ $0 }) < expected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            let count = steps.withLock { $0 }
            #expect(count == expected, "\(count) steps, \(drafted.generated) tokens, \(drafted.accepted) drafted tokens accepted")
            if prompt == Self.copy {
                #expect(count * 2 < drafted.generated, "the copy took \(count) steps for \(drafted.generated) tokens: drafts seldom held")
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func greedyOutputIsTheSameWithDraftingOnAndOffAtFourConversations() async throws {
        let prompts = [Self.copy, Self.free, Self.copy, Self.free]
        let plain = try await Self.answers(try Self.load(.none, parallel: 4), prompts, tokens: 192)
        let model = try Self.load(Self.drafting, parallel: 4)
        let crowded = Mutex<[LlamaModel.Step]>([])
        model.observeSteps { step in if step.generating > 1 { crowded.withLock { $0.append(step) } } }
        let drafted = try await Self.answers(model, prompts, tokens: 192)
        model.observeSteps(nil)
        #expect(drafted.texts == plain.texts)
        // Drafts are verified and held while others generate: the copies' drafts, in steps that
        // decode several sequences.
        let verifying = crowded.withLock { $0 }.filter { $0.batch.contains { $0.kind == .generated && $0.tokens > 1 } }
        #expect(verifying.count >= 10 && drafted.accepted >= 100,
                "\(verifying.count) steps of several sequences verified drafts; \(drafted.accepted) of \(drafted.generated) tokens were drafts that held")
    }

    /// Cancelled while its steps verify drafts of the copied passage, a request leaves the decode
    /// loop within a step or two.
    @Test(.timeLimit(.minutes(5)), arguments: [Self.drafting, Self.draftModel])
    func cancellingDuringVerifyStepsStopsPromptly(_ speculative: Speculation) async throws {
        let model = try Self.load(speculative)
        let pieces = Mutex(0)
        let cancelled = Mutex(false)
        let stepsAfter = Mutex(0)
        let verifying = Mutex(0)
        model.observeSteps { step in
            if cancelled.withLock({ $0 }) {
                stepsAfter.withLock { $0 += 1 }
            } else if step.generating > 0 {
                verifying.withLock { $0 += 1 }
            }
        }
        let task = Task {
            for try await event in model.generate(messages: Self.copy, tools: [], options: Self.options(400)) {
                guard case .text = event else { continue }
                pieces.withLock { $0 += 1 }
            }
        }
        while pieces.withLock({ $0 }) < 40 { try await Task.sleep(for: .milliseconds(10)) }
        cancelled.withLock { $0 = true }
        task.cancel()
        _ = await task.result
        try await Task.sleep(for: .seconds(1))
        #expect(stepsAfter.withLock { $0 } <= 2, "the loop went on for \(stepsAfter.withLock { $0 }) steps after the cancel")
        #expect(verifying.withLock { $0 } < 40, "no draft held before the cancel: \(verifying.withLock { $0 }) steps for 40 pieces")
    }

    // MARK: - A draft model

    /// The default model drafting for itself: it shares the vocabulary, and its `f16` keys make
    /// it disagree with the verifying `q8_0` model now and then.
    static let draftModel = Speculation(kind: .draft, draftMax: 8, draftModel: LooplHome.defaultModel)

    @Test(.timeLimit(.minutes(10)))
    func greedyOutputIsTheSameWithADraftModelAloneAndAtFour() async throws {
        for (prompts, tokens) in [([Self.copy], 100), ([Self.free], 64), ([Self.copy, Self.free, Self.copy, Self.free], 64)] {
            let plain = try await Self.answers(try Self.load(.none, parallel: prompts.count), prompts, tokens: tokens)
            let model = try Self.load(Self.draftModel, parallel: prompts.count)
            let evaluated = Mutex(0)
            model.observeSteps { step in evaluated.withLock { $0 += step.draftModelTokens } }
            let drafted = try await Self.answers(model, prompts, tokens: tokens)
            #expect(drafted.texts == plain.texts)
            // Each step, the draft model catches up only with what was accepted since the last.
            let prompt = try prompts.map { try model.promptTokens(messages: $0, tools: [], options: Self.options(tokens)).0.count }.reduce(0, +)
            let bound = prompt + drafted.generated + drafted.drafted
            try await Task.sleep(for: .milliseconds(200))
            #expect(evaluated.withLock { $0 } <= bound, "the draft model evaluated \(evaluated.withLock { $0 }) tokens, more than \(bound)")
            // The draft model is the verifying one, but for its keys: nearly all its drafts hold.
            #expect(drafted.accepted > 10 && drafted.accepted * 10 >= drafted.drafted * 9, "\(drafted.accepted) of \(drafted.drafted) drafted tokens held")
        }
    }

    /// Sampled tokens come from the verifying model's distribution, each drawn as without drafts:
    /// the same seed gives the same text, though the greedy draft model's drafts often fail.
    @Test(.timeLimit(.minutes(10)))
    func sampledOutputIsTheSameWithADraftModel() async throws {
        let plain = try await Self.answers(try Self.load(.none), [Self.free], tokens: 96, temperature: 2.5)
        let drafted = try await Self.answers(try Self.load(Self.draftModel), [Self.free], tokens: 96, temperature: 2.5)
        #expect(drafted.texts == plain.texts)
        #expect(drafted.accepted > 0 && drafted.accepted < drafted.drafted, "\(drafted.accepted) of \(drafted.drafted) drafted tokens held")
    }

    @Test func aMissingDraftModelIsModelNotFound() throws {
        let speculative = Speculation(kind: .draft, draftModel: "/nonexistent/draft.gguf")
        #expect(throws: LooplError.self) { try Self.load(speculative) }
        do { _ = try Self.load(speculative) } catch let error as LooplError {
            #expect(error.code == .modelNotFound && error.message.contains("draft model (speculative.draftModel): No model file at /nonexistent/draft.gguf"),
                    "\(error.code): \(error.message)")
        }
    }

    /// Settings given in code are checked as a config file's are.
    @Test func theDraftTypeWithoutADraftModelIsAConfigurationError() throws {
        do {
            _ = try Self.load(Speculation(kind: .draft))
            Issue.record("the draft type without a draft model was accepted")
        } catch let error as LooplError {
            #expect(error.code == .invalidConfiguration && error.message.contains("speculative: 'draftModel'"), "\(error.code): \(error.message)")
        }
    }

    /// A draft model whose tokens differ cannot draft: each difference is named.
    @Test func aDraftModelOfAnotherVocabularyIsRefused() throws {
        let vocabulary = Vocabulary(try LlamaWeights(path: LooplHome.defaultModel))
        #expect(vocabulary.texts.count > 1000)
        #expect(vocabulary.mismatch(vocabulary) == nil)
        var padded = vocabulary
        padded.texts += Array(repeating: "<pad>", count: Vocabulary.sizeSlack)
        #expect(vocabulary.mismatch(padded) == nil, "a padded vocabulary of the same family drafts")
        var other = vocabulary
        other.texts[500] = "elsewhere"
        #expect(vocabulary.mismatch(other)?.contains("token 500 is \"elsewhere\"") == true)
        var larger = padded
        larger.texts.append("<pad>")
        #expect(vocabulary.mismatch(larger)?.contains("tokens, against") == true)
        var kind = vocabulary
        kind.kind += 1
        #expect(vocabulary.mismatch(kind)?.contains("tokenizer") == true)
        var bos = vocabulary
        bos.bos = 3
        #expect(vocabulary.mismatch(bos)?.contains("BOS") == true)
    }
}
