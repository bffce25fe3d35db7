import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Testing

/// Every path that reuses a state (a conversation's own cells, a prefix copied from another
/// sequence, a shared start at arrival, a prompt state saved on disk, drafts rolled back) gives
/// the greedy answer of the same tokens reused in place, on a sliding-window model (Gemma 3,
/// window 512) whose passage is longer than the window, and on the default model. A state that
/// lacks a window's cells is evaluated again rather than reused.
@Suite(.serialized) struct WindowedReuseTests {
    /// The two test models, each loaded once for the whole suite.
    enum TestModel: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case windowed, whole

        /// The models of the slow paths: the sliding-window one, since the whole-context model's
        /// reuse paths have suites of their own (prompt cache, shared prefixes, speculation).
        static let slow: [TestModel] = [.windowed]

        var testDescription: String { self == .windowed ? "Gemma 3 (sliding window)" : "SmolLM2 (whole context)" }

        var weights: LlamaWeights {
            get throws {
                switch self {
                case .windowed: try Self.gemma.get()
                case .whole: try Self.smol.get()
                }
            }
        }

        private static let gemma = Result { try LlamaWeights(path: LooplHome.secondModel) }
        private static let smol = Result { try LlamaWeights(path: LooplHome.defaultModel) }
    }

    /// About 800 tokens of a passage: longer than Gemma's window of 512.
    static let passage = (1...24).map { index in
        let trades = ["bakers", "weavers", "smiths", "potters", "coopers", "tanners"]
        let places = ["the bridge", "the market hall", "the mill", "the chapel", "the old gate", "the harbour"]
        return "In the year \(1700 + index * 9), the \(trades[index % 6]) of Lindenfeld met near \(places[(index * 5) % 6]) and agreed on rule \(index): "
            + "no cart may cross after dark, and every stall pays \(index + 2) pennies."
    }.joined(separator: " ")
    /// About 330 more tokens, which make the first turn slide the window past the passage.
    static let appendix = (1...12).map { "Note \($0): the river rose by \($0 + 1) feet in the spring, and the ferry kept to the east bank." }
        .joined(separator: " ")

    static func prompt(_ question: String, appendix: Bool = false) -> String {
        passage + (appendix ? "\n\n" + Self.appendix : "") + "\n\nQuestion: " + question + "\nAnswer:"
    }

    static let first = prompt("Where did the weavers meet, and what did they agree?", appendix: true)
    static let second = prompt("What did the bakers agree, and in which year?")

    static func configuration(_ model: TestModel, parallel: Int = 1, swaFull: Bool = true, sharePrefixes: Bool = true,
                              promptCache: String? = nil) -> LlamaModel.Configuration {
        // `q8_0` keys make a prompt evaluated in other chunks give the same numbers.
        .init(contextLength: 2048, threads: 2, batchSize: 64, parallel: parallel, sharePrefixes: sharePrefixes,
              cacheTypeK: .q8_0, promptCache: promptCache != nil, promptCacheDirectory: promptCache, swaFull: swaFull)
    }

    static func load(_ model: TestModel, _ configuration: LlamaModel.Configuration) async throws -> LlamaModel {
        try await LlamaModel.start(configuration, sharing: try model.weights)
    }

    struct Answer: Equatable {
        var text = ""
        var cached = 0
        var accepted = 0
    }

    /// A greedy continuation of `prompt` in `conversation`, 24 tokens.
    static func answer(_ model: LlamaModel, _ prompt: String, in conversation: String) async throws -> Answer {
        var options = GenerationOptions.greedy(maxTokens: 24)
        options.backend.ignoreEndOfGeneration = true
        options.conversation = conversation
        var answer = Answer()
        for try await event in model.complete(prompt: prompt, options: options) {
            switch event {
            case .text(let text): answer.text += text
            case .metrics(let metrics) where metrics.finished:
                answer.cached = metrics.cachedPromptTokens
                answer.accepted = metrics.acceptedDraftTokens
            default: break
            }
        }
        return answer
    }

    static func tokens(_ model: TestModel, _ text: String) throws -> Int {
        try model.weights.tokenize(text, addSpecial: true).count
    }

    /// The reference: the first prompt, then the second in the same sequence, reusing in place
    /// what it shares with the first. (A cache of another size rounds attention differently, so
    /// the reference has the same `swaFull`.)
    static func inPlace(_ model: TestModel, _ second: String = WindowedReuseTests.second, swaFull: Bool = true) async throws -> Answer {
        let reference = try await load(model, configuration(model, swaFull: swaFull))
        _ = try await answer(reference, first, in: "a")
        let answer = try await answer(reference, second, in: "a")
        await reference.close()
        return answer
    }

    /// The reference where a path evaluates rather than reuses: the prompt evaluated from the
    /// start, in the same chunks as a path that evaluates it again.
    static func fresh(_ model: TestModel, _ prompt: String = WindowedReuseTests.second, swaFull: Bool = true) async throws -> Answer {
        let reference = try await load(model, configuration(model, swaFull: swaFull))
        let answer = try await answer(reference, prompt, in: "fresh")
        await reference.close()
        return answer
    }

    @Test(.timeLimit(.minutes(10)), arguments: TestModel.allCases)
    func theWindowAndThePassageAreLongerThanTheWindow(_ model: TestModel) throws {
        let window = try model.weights.slidingWindow
        #expect(window == (model == .windowed ? 512 : 0))
        let shared = SequenceTable.commonPrefix(try model.weights.tokenize(Self.first, addSpecial: true),
                                                try model.weights.tokenize(Self.second, addSpecial: true))
        let whole = try Self.tokens(model, Self.first)
        #expect(shared > 700 && whole - shared > 300, "\(shared) of \(whole)")
    }

    /// A conversation's own cells, after a turn that slid the window past the shared passage:
    /// without `swaFull` the windowed layers no longer hold it, and the passage is evaluated again.
    @Test(.timeLimit(.minutes(10)), arguments: TestModel.slow)
    func aConversationReusesItsOwnCellsOnlyWhileTheyHoldTheWindow(_ model: TestModel) async throws {
        let slid = try await Self.load(model, Self.configuration(model, swaFull: false))
        _ = try await Self.answer(slid, Self.first, in: "a")
        let got = try await Self.answer(slid, Self.second, in: "a")
        await slid.close()
        let reuses = model == .whole
        let expected = reuses ? try await Self.inPlace(model, swaFull: false) : try await Self.fresh(model, swaFull: false)
        #expect(got.cached == (reuses ? expected.cached : 0) && (!reuses || got.cached > 700), "\(got)")
        #expect(got.text == expected.text)
    }

    /// A prefix copied from another conversation's sequence: with every cell kept, the passage
    /// is copied; without, the other sequence's window slid past it, and it is evaluated.
    @Test(.timeLimit(.minutes(10)), arguments: TestModel.slow)
    func aPrefixIsCopiedFromAnotherSequenceOnlyWhileItHoldsTheWindow(_ model: TestModel) async throws {
        for swaFull in [true, false] {
            let shared = try await Self.load(model, Self.configuration(model, parallel: 2, swaFull: swaFull))
            _ = try await Self.answer(shared, Self.first, in: "a")
            let got = try await Self.answer(shared, Self.second, in: "b")
            await shared.close()
            let copies = swaFull || model == .whole
            let expected = copies ? try await Self.inPlace(model, swaFull: swaFull) : try await Self.fresh(model, swaFull: swaFull)
            #expect(got.cached == (copies ? expected.cached : 0) && (!copies || got.cached > 700), "swaFull \(swaFull): \(got)")
            #expect(got.text == expected.text, "swaFull \(swaFull)")
        }
    }

    /// Two conversations that start together: one evaluates the passage, the other waits and copies it.
    @Test(.timeLimit(.minutes(10)), arguments: TestModel.allCases)
    func conversationsThatStartTogetherShareThePassage(_ model: TestModel) async throws {
        let expected = try await Self.inPlace(model, Self.prompt("What did the bakers agree, and in which year?", appendix: true), swaFull: false)
        let shared = try await Self.load(model, Self.configuration(model, parallel: 2, swaFull: false))
        defer { Task { await shared.close() } }
        async let first = Self.answer(shared, Self.first, in: "a")
        try await Task.sleep(for: .milliseconds(50))
        let second = try await Self.answer(shared, Self.prompt("What did the bakers agree, and in which year?", appendix: true), in: "b")
        let firstAnswer = try await first
        #expect(second.cached > 1000 || firstAnswer.cached > 1000, "neither copied the other's start: \(second), \(firstAnswer)")
        #expect(second.text == expected.text)
    }

    /// A prompt state saved by one model and loaded by another (as by a later process): a prompt
    /// that continues the saved one loads it whole; one that shares only the passage loads it on
    /// the default model, and on the windowed one, whose file holds only the last window,
    /// evaluates it. The closing model saves its conversation with the answer beside the prompt:
    /// a prompt that branches off a word into that answer shares more with the longer file, whose
    /// window it cannot use, and loads the prompt's file.
    @Test(.timeLimit(.minutes(10)), arguments: TestModel.slow)
    func aSavedPromptIsLoadedOnlyWhereItHoldsTheWindow(_ model: TestModel) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-window-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let continued = Self.first + " By the mill.\n\nQuestion: How many pennies did a stall pay under rule 3?\nAnswer:"
        let saving = try await Self.load(model, Self.configuration(model, promptCache: directory))
        let said = try await Self.answer(saving, Self.first, in: "a")
        await saving.close()
        let word = String(said.text.prefix { $0 == " " } + said.text.drop { $0 == " " }.prefix { $0 != " " })
        let branching = Self.first + word + " cart crossed the bridge.\n\nQuestion: How many pennies did a stall pay under rule 5?\nAnswer:"
        for (prompt, loads) in [(Self.second, model == .whole), (continued, true), (branching, true)] {
            let expected = loads ? try await Self.inPlace(model, prompt) : try await Self.fresh(model, prompt)
            let loading = try await Self.load(model, Self.configuration(model, promptCache: directory))
            let got = try await Self.answer(loading, prompt, in: "b")
            await loading.close()
            #expect((got.cached > 700) == loads, "\(got)")
            #expect(got.text == expected.text)
        }
    }

    /// Drafts verified and rolled back over a passage longer than the window give the answer of
    /// one token a step.
    @Test(.timeLimit(.minutes(10)), arguments: TestModel.slow)
    func draftsRolledBackKeepTheAnswer(_ model: TestModel) async throws {
        let prompt = Self.prompt("Repeat rule 20 word for word.", appendix: true)
        let plain = try await Self.load(model, Self.configuration(model, swaFull: false))
        let expected = try await Self.answer(plain, prompt, in: "a")
        await plain.close()
        var configuration = Self.configuration(model, swaFull: false)
        configuration.speculative = Speculation(kind: .ngram, draftMax: 16)
        let drafting = try await Self.load(model, configuration)
        let got = try await Self.answer(drafting, prompt, in: "a")
        await drafting.close()
        #expect(got.accepted > 0, "no draft was accepted: \(got)")
        #expect(got.text == expected.text)
    }
}
