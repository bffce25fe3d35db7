import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Synchronization
import Testing

/// Conversations that start with the same long system prompt evaluate it once: the others copy
/// its cells, whether they start together or later, and answer as they would alone.
@Suite(.serialized) struct SharedPrefixTests {
    /// About a thousand tokens of system prompt.
    static let system = (1...55).map { "Rule \($0): answer in plain words and keep to the point of item \($0). " }.joined()
    static let questions = ["What is the capital of France?", "What colour is fresh grass?",
                            "How many legs has a cat?", "What do bees make?"]

    static func options(_ name: String) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: 12)
        options.backend.ignoreEndOfGeneration = true
        options.conversation = name
        return options
    }

    /// A model with `q8_0` keys. With `f16` keys a one-token step over this many cells splits its
    /// attention between the threads, while a step of several tokens does not, so an answer
    /// decoded alone and one decoded beside others could part at a near tie of two tokens. With
    /// `q8_0` keys both steps compute each row alike, whichever conversations share a step.
    static func load(parallel: Int, sharePrefixes: Bool = true, sharing weights: LlamaWeights? = nil) throws -> LlamaModel {
        let configuration = LlamaModel.Configuration(contextLength: 2048, threads: 2, parallel: parallel, sharePrefixes: sharePrefixes,
                                                     cacheTypeK: .q8_0)
        return try LlamaModel(configuration: configuration, sharing: weights)
    }

    static func messages(_ index: Int) -> [Message] {
        [.system(system), .user(questions[index])]
    }

    /// Runs the conversations `indices` at once, each to its end: their turns by index.
    static func together(_ model: LlamaModel, _ indices: [Int]) async throws -> [Int: ModelConformance.Turn] {
        let suite = ModelConformance(model: model)
        return try await withThrowingTaskGroup(of: (Int, ModelConformance.Turn).self) { group in
            for index in indices {
                group.addTask { (index, try await suite.run("c\(index)", messages(index), options: options("c\(index)"))) }
            }
            var turns: [Int: ModelConformance.Turn] = [:]
            for try await (index, turn) in group { turns[index] = turn }
            return turns
        }
    }

    /// The tokens every prompt of `indices` starts with.
    static func sharedTokens(_ model: LlamaModel, _ indices: [Int]) throws -> Int {
        let prompts = try indices.map { model.weights.tokenize(try model.renderPrompt(messages: messages($0), tools: []), addSpecial: true) }
        return prompts.dropFirst().map { SequenceTable.commonPrefix(prompts[0], $0) }.min() ?? 0
    }

    @Test(.timeLimit(.minutes(10)))
    func fourConversationsStartedTogetherEvaluateTheSystemPromptOnce() async throws {
        let model = try Self.load(parallel: 4)
        let alone = try Self.load(parallel: 4, sharePrefixes: false, sharing: model.weights)
        let shared = try Self.sharedTokens(model, [0, 1, 2, 3])
        #expect(shared > 900, "the system prompt is too short to show sharing: \(shared) tokens")
        let evaluated = Mutex(0)
        model.observeSteps { step in evaluated.withLock { $0 += step.promptTokens } }
        let turns = try await Self.together(model, [0, 1, 2, 3])
        model.observeSteps(nil)
        let metrics = try (0..<4).map { try #require(turns[$0]?.metrics.last) }
        let prompts = metrics.map(\.promptTokens).reduce(0, +)
        let fromMetrics = metrics.map { $0.promptTokens - $0.cachedPromptTokens }.reduce(0, +)
        #expect(evaluated.withLock { $0 } == fromMetrics, "the steps evaluated other tokens than the metrics say: \(metrics)")
        #expect(fromMetrics <= prompts - 3 * shared, "the system prompt was evaluated more than once: \(metrics)")
        #expect(metrics.filter { $0.cachedPromptTokens >= shared }.count == 3, "\(metrics)")
        let evaluator = try #require(metrics.firstIndex { $0.cachedPromptTokens < shared })
        for index in 0..<4 {
            let unshared = try await Self.alone(alone, index, holding: index == evaluator ? nil : evaluator)
            #expect(turns[index]?.text == unshared.text, "conversation \(index) answered otherwise than alone (the prompt of \(evaluator) copied)")
        }
    }

    /// Conversation `index` on a model that does not share prefixes, one request at a time. Where
    /// another conversation's prefix was copied, the same conversation first holds that
    /// conversation's prompt in its own cells (`holding`), so that its prompt is evaluated from the
    /// same point on, in the same chunks, as after the copy.
    static func alone(_ model: LlamaModel, _ index: Int, holding: Int?) async throws -> ModelConformance.Turn {
        let suite = ModelConformance(model: model)
        let name = "alone \(index) holding \(holding ?? -1)"
        if let holding { _ = try await suite.run("\(name) first", messages(holding), options: options(name)) }
        let turn = try await suite.run(name, messages(index), options: options(name))
        let cached = try #require(turn.metrics.last).cachedPromptTokens
        #expect(holding == nil ? cached == 0 : cached > 900, "alone, conversation \(index) had \(cached) tokens cached")
        return turn
    }

    @Test(.timeLimit(.minutes(10)))
    func aConversationAfterAnotherEndedCopiesItsPrefix() async throws {
        let model = try Self.load(parallel: 2)
        let alone = try Self.load(parallel: 2, sharePrefixes: false, sharing: model.weights)
        let shared = try Self.sharedTokens(model, [0, 1])
        _ = try await Self.together(model, [0])
        let later = try await Self.together(model, [1])
        let metrics = try #require(later[1]?.metrics.last)
        #expect(metrics.cachedPromptTokens >= shared, "the later conversation evaluated the system prompt again: \(metrics)")
        // Without sharing, the same conversation first holds the other's prompt in its own cells,
        // so its prompt is evaluated from the same point on, in the same chunks.
        let suite = ModelConformance(model: alone)
        _ = try await suite.run("c1 first", Self.messages(0), options: Self.options("c1"))
        let unshared = try await suite.run("c1", Self.messages(1), options: Self.options("c1"))
        #expect(try #require(unshared.metrics.last).cachedPromptTokens >= shared, "\(unshared.metrics)")
        #expect(later[1]?.text == unshared.text, "the copied prefix answers otherwise than the same prefix held")
    }

    @Test func aPromptWaitsCopiesOrEvaluatesByWhatItSaves() {
        let minimum = PrefixShare.minimum
        #expect(PrefixShare.source(own: 0, held: nil, coming: minimum) == .wait)
        #expect(PrefixShare.source(own: 0, held: nil, coming: minimum - 1) == .own)
        #expect(PrefixShare.source(own: 0, held: (2, 500), coming: 500 + minimum - 1) == .copy(sequence: 2, length: 500))
        #expect(PrefixShare.source(own: 0, held: (2, 500), coming: 500 + minimum) == .wait)
        #expect(PrefixShare.source(own: 450, held: (2, 500), coming: 0) == .own)
        #expect(PrefixShare.source(own: 10, held: (1, 10 + minimum), coming: 0) == .copy(sequence: 1, length: 10 + minimum))
    }
}
