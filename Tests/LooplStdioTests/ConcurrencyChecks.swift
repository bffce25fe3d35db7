import Loopl
import Synchronization
import Testing

/// Several requests at once on one model: the same answers as one after another, each cancelled
/// or failed on its own.
struct ConcurrencyChecks {
    let model: any Model
    /// The prompts of the conversations, one each.
    var prompts = ["Tell me about the sea.", "Name three colours.", "What is a lighthouse?", "Count to five, slowly."]
    var tokens = 16

    /// One turn's text, its final metrics, and when each text event arrived.
    struct Turn: Sendable {
        var text = ""
        var metrics: Metrics?
        var arrivals: [ContinuousClock.Instant] = []
    }

    func options(_ index: Int, tokens: Int? = nil) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens ?? self.tokens)
        options.conversation = "conversation-\(index)"
        return options
    }

    static func run(_ model: any Model, _ prompt: String, _ options: GenerationOptions,
                    started: (@Sendable () -> Void)? = nil) async throws -> Turn {
        var turn = Turn()
        for try await event in model.generate(messages: [.user(prompt)], tools: [], options: options) {
            switch event {
            case .text(let text):
                if turn.arrivals.isEmpty { started?() }
                turn.text += text
                turn.arrivals.append(.now)
            case .metrics(let metrics): turn.metrics = metrics
            case .toolCall, .reasoning: break
            }
        }
        return turn
    }

    /// The conversations at once, each with `options(index)`; results in prompt order.
    /// `started(index)` is called at each one's first text.
    func together(_ options: @escaping @Sendable (Int) -> GenerationOptions, prompts: [String]? = nil,
                  started: @escaping @Sendable (Int) -> Void = { _ in }) async -> [Result<Turn, any Error>] {
        let prompts = prompts ?? self.prompts
        let model = self.model
        return await withTaskGroup(of: (Int, Result<Turn, any Error>).self) { group in
            for (index, prompt) in prompts.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await Self.run(model, prompt, options(index), started: { started(index) })))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [Result<Turn, any Error>?] = Array(repeating: nil, count: prompts.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(CancellationError()) }
        }
    }

    /// The conversations at once give the texts they give one after another, and they overlapped.
    func concurrentMatchesSequential() async throws {
        var sequential: [String] = []
        for (index, prompt) in prompts.enumerated() {
            sequential.append(try await Self.run(model, prompt, options(index)).text)
        }
        let turns = try await together { options($0) }.map { try $0.get() }
        #expect(turns.map(\.text) == sequential)
        #expect(turns.allSatisfy { $0.metrics?.finished == true })
        let overlapped = turns.indices.contains { i in
            turns.indices.contains { j in
                guard i != j, let a = turns[i].arrivals.first, let b = turns[j].arrivals.first,
                      let aEnd = turns[i].arrivals.last, let bEnd = turns[j].arrivals.last else { return false }
                return a < bEnd && b < aEnd
            }
        }
        #expect(overlapped, "the conversations were served one after another")
    }

    /// Cancelling one of the conversations while all stream ends it alone: the others generate
    /// every token they asked for.
    func cancelOneOfMany() async throws {
        let model = self.model
        let started = AsyncStream<Int>.makeStream()
        let tasks = prompts.enumerated().map { index, prompt in
            var options = options(index, tokens: index == 0 ? 400 : tokens * 2)
            options.ignoreEndOfGeneration = true
            return Task { try await Self.run(model, prompt, options, started: { started.continuation.yield(index) }) }
        }
        var seen = Set<Int>()
        for await index in started.stream {
            seen.insert(index)
            if seen.count == tasks.count { break }
        }
        tasks[0].cancel()
        if case .success(let turn) = await tasks[0].result {
            #expect((turn.metrics?.generatedTokens ?? 0) < 400, "the cancelled stream ran to its end")
        }
        for task in tasks.dropFirst() {
            let turn = try await task.value
            #expect(turn.metrics?.generatedTokens == tokens * 2 && turn.metrics?.stopReason == .maxTokens, "\(String(describing: turn.metrics))")
        }
        #expect(try await Self.run(model, prompts[1], options(1)).metrics?.finished == true)
    }

    /// One conversation over the context fails alone with `context_overflow`; the others finish.
    func overflowOneOfMany() async throws {
        let size = try await model.contextSize
        var prompts = self.prompts
        prompts[1] = String(repeating: "hello ", count: size * 2)
        let results = await together({ options($0) }, prompts: prompts)
        for (index, result) in results.enumerated() {
            switch (index, result) {
            case (1, .success):
                Issue.record("a prompt of \(size * 2) words in a context of \(size) was answered")
            case (1, .failure(let error)):
                #expect((error as? LooplError)?.code == .contextOverflow, "\(error)")
            case (_, .success(let turn)):
                #expect(turn.metrics?.finished == true)
            case (_, .failure(let error)):
                Issue.record("conversation \(index) failed beside the one over the context: \(error)")
            }
        }
    }
}
