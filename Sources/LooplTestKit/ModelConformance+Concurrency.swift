import Loopl
import Synchronization

/// The checks of several requests at once on one model: every backend passes them with the
/// same prompts. The model must serve at least `count` requests at once (its `parallel`).
extension ModelConformance {
    /// Four questions of about the same length with different answers.
    public static let questions: [[Message]] = [
        [.system("You are a helpful assistant."), .user("Name three colours of the rainbow.")],
        [.system("You are a helpful assistant."), .user("Write one sentence about the sea.")],
        [.system("You are a helpful assistant."), .user("What is the capital of France?")],
        [.system("You are a helpful assistant."), .user("Give me a short tip for sleeping well.")],
        [.system("You are a helpful assistant."), .user("Describe a cat in a few words.")],
        [.system("You are a helpful assistant."), .user("Say something kind about mornings.")],
        [.system("You are a helpful assistant."), .user("Which planet is closest to the sun?")],
        [.system("You are a helpful assistant."), .user("Suggest a name for a small boat.")],
    ]

    /// Runs the concurrency checks for a model that serves `count` requests at once.
    public func runConcurrency(count: Int = 4, matchingChunks: Int? = nil) async throws {
        try await checkConcurrentMatchesSequential(count: count, matchingChunks: matchingChunks)
        try await checkCancelOneOfMany(count: count)
        try await checkOverflowOneOfMany(count: count)
    }

    /// `count` greedy conversations at once stream what each streams alone, and they are served
    /// together: every one has streamed text before any of them ends. Between the two runs,
    /// `count` other conversations take every place, so the batched run evaluates its prompts
    /// afresh instead of reusing the cells of the run alone (where a corrupted cache would give
    /// the same wrong answer twice).
    ///
    /// `matchingChunks` compares only the first chunks of each answer, for engines whose batched
    /// kernels round differently from their single-sequence ones; nil compares whole answers.
    public func checkConcurrentMatchesSequential(count: Int = 4, tokens: Int = 24, matchingChunks: Int? = nil) async throws {
        let check = "concurrent matches sequential"
        let prompts = try questions(count, check)
        let options = Self.exactly(tokens)
        var alone: [[String]] = []
        for (index, prompt) in prompts.enumerated() {
            var one = options
            one.conversation = "alone-\(index)"
            alone.append(try await chunks(check, prompt, options: one).chunks)
        }
        try await takeEveryPlace(count, check)
        let together = try await withThrowingTaskGroup(of: (Int, Streamed).self) { group in
            for (index, prompt) in prompts.enumerated() {
                var one = options
                one.conversation = "together-\(index)"
                group.addTask { (index, try await self.chunks(check, prompt, options: one)) }
            }
            var results = [Streamed?](repeating: nil, count: prompts.count)
            for try await (index, streamed) in group { results[index] = streamed }
            return results.compactMap { $0 }
        }
        for index in prompts.indices {
            let expected = matchingChunks.map { Array(alone[index].prefix($0)) } ?? alone[index]
            let got = matchingChunks.map { Array(together[index].chunks.prefix($0)) } ?? together[index].chunks
            try expect(!expected.isEmpty, check, "conversation \(index) streamed no text alone")
            try expect(got == expected, check, "conversation \(index) alone streamed \(expected.joined().debugDescription), together with \(count - 1) others \(got.joined().debugDescription)")
            let metrics = together[index].metrics
            try expect((metrics?.cachedPromptTokens ?? 0) * 2 <= (metrics?.promptTokens ?? 0), check,
                       "conversation \(index) together reused \(metrics?.cachedPromptTokens ?? 0) of its \(metrics?.promptTokens ?? 0) prompt tokens from an earlier run")
        }
        let lastStart = together.compactMap(\.firstText).max()
        let firstEnd = together.map(\.end).min()
        if let lastStart, let firstEnd {
            try expect(lastStart < firstEnd, check, "the \(count) requests were not served together: one ended before another streamed any text")
        }
    }

    /// Cancelling one of `count` streams mid-way ends it alone: the others finish all their tokens.
    /// The cancelled stream asks for far more tokens than the others, and its place frees at once:
    /// a request started after the cancel streams text before any of the others ends.
    public func checkCancelOneOfMany(count: Int = 4, tokens: Int = 32) async throws {
        let check = "cancel one of many"
        let prompts = try questions(count, check)
        let options = Self.exactly(tokens)
        let model = self.model
        let (startedStream, startedContinuation) = AsyncStream<Void>.makeStream()
        let first = prompts[0]
        let rest = Array(prompts.dropFirst())
        let victim = Task {
            var streamed = 0
            for try await event in model.generate(messages: first, tools: [], options: Self.exactly(tokens * 12)) {
                if case .text = event {
                    streamed += 1
                    if streamed == 3 { startedContinuation.yield() }
                }
            }
        }
        let others = Task {
            try await withThrowingTaskGroup(of: Streamed.self) { group in
                for prompt in rest {
                    group.addTask { try await self.chunks(check, prompt, options: options) }
                }
                var all: [Streamed] = []
                for try await streamed in group { all.append(streamed) }
                return all
            }
        }
        try await within(requestBound, check, "the stream to cancel did not start") {
            for await _ in startedStream { return }
        }
        onCancel()
        victim.cancel()
        _ = await victim.result
        let after = try await chunks(check, first, options: Self.exactly(2))
        let finals = try await others.value
        for streamed in finals {
            try expect(streamed.metrics?.finished == true, check, "a stream that was not cancelled did not end with final metrics")
            try expect(streamed.metrics?.generatedTokens == tokens, check, "a stream that was not cancelled generated \(streamed.metrics?.generatedTokens ?? 0) tokens, not \(tokens)")
        }
        if let firstEnd = finals.map(\.end).min(), count > 1 {
            try expect(after.firstText.map { $0 < firstEnd } ?? false, check,
                       "a request after the cancel streamed no text before the others ended: the cancelled stream kept its place")
        }
    }

    /// `count` short requests at once under a system message of their own, each its own
    /// conversation: they take every place, and share little of their prompts with the questions.
    private func takeEveryPlace(_ count: Int, _ check: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, question) in Self.questions.prefix(count).enumerated() {
                var options = Self.exactly(2)
                options.conversation = "between-\(index)"
                let messages: [Message] = [.system("Answer in one word, in French."), .user(question.last?.text ?? "")]
                group.addTask { _ = try await self.chunks(check, messages, options: options) }
            }
            try await group.waitForAll()
        }
    }

    /// One prompt of `count` that does not fit fails with `context_overflow`; the others answer.
    public func checkOverflowOneOfMany(count: Int = 4, tokens: Int = 16) async throws {
        let check = "overflow one of many"
        let prompts = try questions(count - 1, check)
        let size = try await model.contextSize
        let huge: [Message] = [.user(String(repeating: "hello ", count: size * 2))]
        let options = GenerationOptions.greedy(maxTokens: tokens)
        let outcomes = try await withThrowingTaskGroup(of: (Bool, Result<Streamed, any Error>).self) { group in
            group.addTask { (true, await Result(catching: { try await self.chunks(check, huge, options: options) })) }
            for prompt in prompts {
                group.addTask { (false, await Result(catching: { try await self.chunks(check, prompt, options: options) })) }
            }
            var outcomes: [(Bool, Result<Streamed, any Error>)] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        for (isHuge, outcome) in outcomes {
            switch (isHuge, outcome) {
            case (true, .success(let streamed)):
                throw ConformanceFailure(check: check, message: "a prompt of \(size * 2) words in a context of \(size) was answered: \(streamed.chunks.joined().prefix(40).debugDescription)")
            case (true, .failure(let error)):
                try expect((error as? LooplError)?.code == .contextOverflow, check, "the prompt over the context failed with \(error), not context_overflow")
            case (false, .failure(let error)):
                throw ConformanceFailure(check: check, message: "a prompt that fits failed beside one that overflows: \(error)")
            case (false, .success(let streamed)):
                try expect(streamed.metrics?.finished == true, check, "a prompt that fits did not end with final metrics")
            }
        }
    }

    /// With `parallel` requests running, `maxQueue + 1` more sent together: one of them fails at
    /// once with `busy`, and the `maxQueue` that wait are served once the running ones end.
    public func checkQueueBoundGivesBusy(parallel: Int, maxQueue: Int) async throws {
        let check = "queue bound"
        let size = try await model.contextSize
        let holders = try await startRunning(parallel, options: Self.exactly(max(min(2000, size - 200), 16)), check)
        defer { for holder in holders { holder.cancel() } }
        let short = GenerationOptions.greedy(maxTokens: 4)
        let (ends, ended) = AsyncStream<Int>.makeStream()
        let requests = (0...maxQueue).map { index in
            Task {
                defer { ended.yield(index) }
                return try await self.chunks(check, Self.greeting, options: short)
            }
        }
        // The request the queue has no room for fails first: the refusal needs no model work, so
        // a second is ample even on two busy cores.
        let first: Int
        do {
            first = try await within(.seconds(1), check, "none of \(maxQueue + 1) requests past \(parallel) running failed with busy") {
                for await index in ends { return index }
                throw CancellationError()
            }
        } catch {
            for request in requests { request.cancel() }
            throw error
        }
        switch await requests[first].result {
        case .success(let turn):
            throw ConformanceFailure(check: check, message: "a request was answered while \(parallel) held every place: \(turn.chunks.joined().debugDescription)")
        case .failure(let error):
            try expect((error as? LooplError)?.code == .busy, check, "a request past the queue bound failed with \(error), not busy")
        }
        for holder in holders { holder.cancel() }
        for (index, request) in requests.enumerated() where index != first {
            switch await request.result {
            case .success(let turn):
                try expect(turn.metrics?.finished == true, check, "a queued request did not end with final metrics after the running ones were cancelled")
            case .failure(let error):
                throw ConformanceFailure(check: check, message: "\(maxQueue) requests fit the queue, yet another one failed: \(error)")
            }
        }
    }

    /// Starts `count` requests and returns them once each has streamed text; fails, cancelling
    /// them, when one fails or they do not all start in time.
    private func startRunning(_ count: Int, options: GenerationOptions, _ check: String) async throws -> [Task<Void, Never>] {
        let model = self.model
        // Each running request reports once: nil when its first text came, or why it failed.
        let (runningStream, runningContinuation) = AsyncStream<String?>.makeStream()
        let holders = (0..<count).map { index in
            let prompt = Self.questions[index % Self.questions.count]
            return Task {
                var announced = false
                do {
                    for try await event in model.generate(messages: prompt, tools: [], options: options) {
                        if case .text = event, !announced {
                            announced = true
                            runningContinuation.yield(nil)
                        }
                    }
                } catch {
                    if !announced { runningContinuation.yield("\(error)") }
                }
            }
        }
        do {
            try await within(requestBound, check, "\(count) requests did not all start") {
                var started = 0
                for await report in runningStream {
                    if let report { throw ConformanceFailure(check: check, message: "a request that should run failed: \(report)") }
                    started += 1
                    if started == count { return }
                }
            }
        } catch {
            for holder in holders { holder.cancel() }
            throw error
        }
        return holders
    }

    // MARK: - Streaming with times

    /// Greedy, exactly `tokens` tokens.
    static func exactly(_ tokens: Int) -> GenerationOptions {
        var options = GenerationOptions.greedy(maxTokens: tokens)
        options.backend.ignoreEndOfGeneration = true
        return options
    }

    /// A turn's text chunks and when they came.
    struct Streamed: Sendable {
        var chunks: [String] = []
        var metrics: Metrics?
        var firstText: ContinuousClock.Instant?
        var end = ContinuousClock.now
    }

    private func chunks(_ check: String, _ messages: [Message], options: GenerationOptions) async throws -> Streamed {
        let model = self.model
        return try await within(requestBound, check, "a request did not finish") {
            var streamed = Streamed()
            for try await event in model.generate(messages: messages, tools: [], options: options) {
                switch event {
                case .text(let text):
                    streamed.chunks.append(text)
                    if streamed.firstText == nil { streamed.firstText = .now }
                case .metrics(let metrics): streamed.metrics = metrics
                case .reasoning, .toolCall: break
                }
            }
            streamed.end = .now
            return streamed
        }
    }

    private func questions(_ count: Int, _ check: String) throws -> [[Message]] {
        guard count >= 1, count <= Self.questions.count else {
            throw ConformanceFailure(check: check, message: "asks for \(count) conversations; the suite has 1 to \(Self.questions.count)")
        }
        return Array(Self.questions.prefix(count))
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
