import Foundation
import Loopl
@testable import LooplLlama
import Testing

/// `reproducible`: the same prompt gives the same greedy tokens evaluated fresh, after reusing in
/// place what an earlier prompt shares with it, and after loading that from the prompt cache.
@Suite(.serialized) struct ReproducibleTests {
    struct Answers {
        var fresh = WindowedReuseTests.Answer()
        var inPlace = WindowedReuseTests.Answer()
        var loaded = WindowedReuseTests.Answer()
    }

    /// About 400 tokens of the passage, then a question.
    static func prompt(_ question: String) -> String {
        String(WindowedReuseTests.passage.prefix(1600)) + "\n\nQuestion: " + question + "\nAnswer:"
    }

    static let first = prompt("Where did the weavers meet, and what did they agree?")
    static let second = prompt("What did the bakers agree, and in which year?")

    static func configuration(reproducible: Bool, promptCache: String? = nil) -> LlamaModel.Configuration {
        // A small batch: several chunks a prompt, and reused prefixes that end inside one.
        .init(contextLength: 2048, threads: 2, batchSize: 64, parallel: 1, promptCache: promptCache != nil,
              promptCacheDirectory: promptCache, reproducible: reproducible)
    }

    /// The second prompt evaluated fresh, after the first in place, and in a model that loads the
    /// first's saved state, on the default model.
    static func answers(reproducible: Bool) async throws -> Answers {
        let model = WindowedReuseTests.TestModel.whole
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-aligned-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var answers = Answers()
        let fresh = try await WindowedReuseTests.load(model, configuration(reproducible: reproducible))
        answers.fresh = try await WindowedReuseTests.answer(fresh, Self.second, in: "fresh")
        await fresh.close()
        let saving = try await WindowedReuseTests.load(model, configuration(reproducible: reproducible, promptCache: directory))
        _ = try await WindowedReuseTests.answer(saving, Self.first, in: "a")
        answers.inPlace = try await WindowedReuseTests.answer(saving, Self.second, in: "a")
        await saving.close()
        let loading = try await WindowedReuseTests.load(model, configuration(reproducible: reproducible, promptCache: directory))
        answers.loaded = try await WindowedReuseTests.answer(loading, Self.second, in: "b")
        await loading.close()
        return answers
    }

    @Test(.timeLimit(.minutes(10)))
    func theSameTokensWhateverWasReused() async throws {
        let answers = try await Self.answers(reproducible: true)
        #expect(answers.inPlace.cached > 300 && answers.inPlace.cached % 64 == 0, "\(answers.inPlace)")
        #expect(answers.loaded.cached > 300 && answers.loaded.cached % 64 == 0, "\(answers.loaded)")
        #expect(answers.inPlace.text == answers.fresh.text)
        #expect(answers.loaded.text == answers.fresh.text)
    }
}
