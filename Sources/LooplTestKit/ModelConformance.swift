import Loopl

/// A check of ``ModelConformance`` that a model failed.
public struct ConformanceFailure: Error, CustomStringConvertible {
    public let check: String
    public let message: String
    public var description: String { "\(check): \(message)" }
}

/// The checks every backend must pass, with the same prompts and the same expectations,
/// so that the backends stay interchangeable.
///
/// Time limits are generous liveness bounds, not speed checks.
public struct ModelConformance: Sendable {
    public let model: any Model
    /// How long one request may take before the model counts as hung.
    public var requestBound: Duration
    /// How many tokens a cancelled generation may still produce, in the time the next request waits.
    public var tokensAfterCancel: Int
    /// How many requests the model serves at once; the cancellation check fills all places but one,
    /// so that the request after a cancel waits for the cancelled one's place.
    public var places: Int
    /// Called when the cancel-one-of-many check cancels its stream, for a test that reads its
    /// engine's own log around that moment.
    public var onCancel: @Sendable () -> Void = {}

    public init(model: any Model, requestBound: Duration = .seconds(300), tokensAfterCancel: Int = 10,
                places: Int = 1) {
        self.model = model
        self.requestBound = requestBound
        self.tokensAfterCancel = tokensAfterCancel
        self.places = places
    }

    /// The conversation every check starts from.
    public static let greeting: [Message] = [
        .system("You are a helpful assistant."),
        .user("Say hello in one short sentence."),
    ]
    /// A conversation that invites a call to ``weatherTool``.
    public static let weatherQuestion: [Message] = [
        .system("You are a helpful assistant."),
        .user("What is the weather like in Paris today?"),
    ]
    public static let weatherTool = ToolSpec(
        name: "get_weather", description: "Get the current weather in a city.",
        parameters: ["type": "object",
                     "properties": ["city": ["type": "string", "description": "The city's name."]],
                     "required": ["city"]])

    /// Runs every check, then closes the model twice.
    public func runAll() async throws {
        try await checkPlainAnswer()
        try await checkMaxTokens()
        try await checkStopString()
        try await checkRequiredToolCall()
        try await checkCancellation()
        try await checkContextOverflow()
        try await checkCloseTwice()
    }

    /// A plain answer streams text and ends with metrics where finished is true and the stop reason is set.
    public func checkPlainAnswer() async throws {
        let check = "plain answer"
        let turn = try await run(check, Self.greeting, options: .greedy(maxTokens: 32))
        try expect(!turn.text.isEmpty, check, "no text was streamed")
        let last = try finalMetrics(turn, check)
        try expect(last.stopReason != nil, check, "the final metrics have no stop reason")
        try expect(last.generatedTokens > 0, check, "the final metrics count no generated tokens")
        try expect(last.promptTokens > 0, check, "the final metrics count no prompt tokens")
    }

    /// maxTokens is honoured exactly when end-of-generation is ignored.
    public func checkMaxTokens() async throws {
        let check = "max tokens"
        var options = GenerationOptions.greedy(maxTokens: 12)
        options.backend.ignoreEndOfGeneration = true
        let last = try finalMetrics(try await run(check, Self.greeting, options: options), check)
        try expect(last.generatedTokens == 12, check, "asked for 12 tokens, got \(last.generatedTokens)")
        try expect(last.stopReason == .maxTokens, check, "stop reason is \(String(describing: last.stopReason)), not max_tokens")
    }

    /// A stop string ends the answer before it, and is not shown.
    public func checkStopString() async throws {
        let check = "stop string"
        let prompt: [Message] = [.user("Count from 1 to 20, separated by commas.")]
        var options = GenerationOptions.greedy(maxTokens: 24)
        options.backend.ignoreEndOfGeneration = true
        let free = try await run(check, prompt, options: options).text
        try expect(free.count >= 8, check, "the answer without a stop string is too short to test: \(free.debugDescription)")
        let stop = String(free.dropFirst(4).prefix(3))
        let expected = free.firstRange(of: stop).map { String(free[..<$0.lowerBound]) } ?? free
        options.stop = [stop]
        let stopped = try await run(check, prompt, options: options)
        try expect(stopped.text == expected, check, "with stop \(stop.debugDescription) expected \(expected.debugDescription), got \(stopped.text.debugDescription)")
        try expect(try finalMetrics(stopped, check).stopReason == .stop, check, "stop reason is not stop")
    }

    /// toolChoice required yields a call to the offered tool with a string `city`, as a parsed event.
    public func checkRequiredToolCall() async throws {
        let check = "required tool call"
        var options = GenerationOptions.greedy(maxTokens: 64)
        options.toolChoice = .required
        let turn = try await run(check, Self.weatherQuestion, tools: [Self.weatherTool], options: options)
        guard let call = turn.toolCalls.first else {
            throw ConformanceFailure(check: check, message: "no tool call in \(turn.text.debugDescription)")
        }
        try expect(call.name == Self.weatherTool.name, check, "called \(call.name), not get_weather")
        try expect(call.arguments["city"]?.stringValue != nil, check, "the call has no string city: \(JSONValue.object(call.arguments))")
    }

    /// Cancelling mid-stream stops the model within a few tokens, and the next request works.
    ///
    /// The tokens a cancelled generation goes on producing delay the next request, which shares the
    /// engine with it: its wait for the first event, beyond the same request's wait with
    /// nothing before it, may come to at most ``tokensAfterCancel`` tokens at the cancelled stream's pace.
    /// Long requests hold the other ``places`` throughout, so that the next request cannot take a free one.
    public func checkCancellation() async throws {
        let check = "cancellation"
        let fillers = try await fillPlaces(places - 1, check)
        defer { for filler in fillers { filler.cancel() } }
        let next = GenerationOptions.greedy(maxTokens: 8)
        var baseline = Duration.zero
        for _ in 0..<2 {
            baseline = max(baseline, try await run(check, Self.greeting, options: next).firstEventDelay ?? .zero)
        }
        var options = GenerationOptions.greedy(maxTokens: 400)
        options.backend.ignoreEndOfGeneration = true
        let arrivals = AsyncStream<ContinuousClock.Instant>.makeStream()
        let model = self.model
        let consumer = Task {
            defer { arrivals.continuation.finish() }
            for try await event in model.generate(messages: Self.greeting, tools: [], options: options) {
                if case .text = event { arrivals.continuation.yield(.now) }
            }
        }
        let sampled = 5
        let times = try await within(requestBound, check, "\(sampled) text events did not arrive") {
            var times: [ContinuousClock.Instant] = []
            for await time in arrivals.stream {
                times.append(time)
                if times.count == sampled { break }
            }
            return times
        }
        consumer.cancel()
        _ = await consumer.result
        guard let first = times.first, let last = times.last, times.count == sampled else {
            throw ConformanceFailure(check: check, message: "the stream ended after \(times.count) text events, before the cancel")
        }
        // Scripted models stream faster than any engine; 10 ms a token keeps scheduling noise out.
        let perToken = max((last - first) / (sampled - 1), .milliseconds(10))
        let turn = try await run(check, Self.greeting, options: next)
        try expect(!turn.text.isEmpty, check, "the request after the cancelled one streamed no text")
        let wait = turn.firstEventDelay ?? .zero
        let extra = max(wait - baseline, .zero)
        try expect(extra <= perToken * tokensAfterCancel, check,
                   "the next request waited \(wait) against \(baseline) without a cancelled one before it: about \(Int(extra / perToken)) more tokens at \(perToken) a token, more than \(tokensAfterCancel)")
    }

    /// Starts `count` long requests and returns once each has streamed text; cancel them to end them.
    func fillPlaces(_ count: Int, _ check: String) async throws -> [Task<Void, any Error>] {
        guard count > 0 else { return [] }
        let options = Self.exactly(300)
        let (started, continuation) = AsyncStream<Void>.makeStream()
        let model = self.model
        let fillers = (0..<count).map { _ in
            Task {
                var streaming = false
                defer { if !streaming { continuation.yield() } }
                for try await event in model.generate(messages: Self.greeting, tools: [], options: options) {
                    if case .text = event, !streaming {
                        streaming = true
                        continuation.yield()
                    }
                }
            }
        }
        do {
            try await within(requestBound, check, "\(count) requests to fill the other places did not all stream") {
                var seen = 0
                for await _ in started {
                    seen += 1
                    if seen == count { return }
                }
            }
        } catch {
            for filler in fillers { filler.cancel() }
            throw error
        }
        return fillers
    }

    /// A prompt longer than the context is a typed error.
    public func checkContextOverflow() async throws {
        let check = "context overflow"
        let size = try await model.contextSize
        let huge = String(repeating: "hello ", count: size * 2)
        do {
            let turn = try await run(check, [.user(huge)], options: .greedy(maxTokens: 8))
            throw ConformanceFailure(check: check, message: "a prompt of \(size * 2) words in a context of \(size) was answered: \(turn.text.prefix(40).debugDescription)")
        } catch let error as LooplError {
            try expect(error.code == .contextOverflow, check, "expected context_overflow, got \(error.code): \(error.message)")
        }
    }

    /// close() twice is harmless, and a request after it fails with the closed error.
    public func checkCloseTwice() async throws {
        let check = "close twice"
        await model.close()
        await model.close()
        do {
            let turn = try await run(check, Self.greeting, options: .greedy(maxTokens: 4))
            throw ConformanceFailure(check: check, message: "a closed model answered: \(turn.text.prefix(40).debugDescription)")
        } catch let error as LooplError {
            try expect(error.code == .closed, check, "expected closed, got \(error.code): \(error.message)")
        }
    }

    // MARK: - Running a turn

    /// One streamed turn, collected.
    public struct Turn: Sendable {
        public var text = ""
        public var reasoning = ""
        public var toolCalls: [ToolCall] = []
        public var metrics: [Metrics] = []
        /// Whether anything came after the metrics marked finished.
        public var eventAfterFinish = false
        /// The time from the request to its first event.
        public var firstEventDelay: Duration?
    }

    /// Runs one request to its end, within ``requestBound``.
    public func run(_ check: String, _ messages: [Message], tools: [ToolSpec] = [],
                    options: GenerationOptions) async throws -> Turn {
        let model = self.model
        let turn = try await within(requestBound, check, "the request did not finish") {
            var turn = Turn()
            let start = ContinuousClock.now
            for try await event in model.generate(messages: messages, tools: tools, options: options) {
                if turn.firstEventDelay == nil { turn.firstEventDelay = ContinuousClock.now - start }
                if turn.metrics.last?.finished == true { turn.eventAfterFinish = true }
                switch event {
                case .text(let text): turn.text += text
                case .reasoning(let text): turn.reasoning += text
                case .toolCall(let call): turn.toolCalls.append(call)
                case .metrics(let metrics): turn.metrics.append(metrics)
                }
            }
            return turn
        }
        for (kind, streamed) in [("text", turn.text), ("reasoning", turn.reasoning)] {
            guard let marker = Self.markers.first(where: streamed.contains) else { continue }
            throw ConformanceFailure(check: check, message: "a \(kind) event carries markup (\(marker)): events must be parsed, see LiftingContinuation; it was \(streamed.debugDescription)")
        }
        return turn
    }

    /// Markup that no text event may carry: tool-call blocks and thinking tags.
    static let markers = ["<tool_call>", "</tool_call>", "<think>", "</think>"]

    private func finalMetrics(_ turn: Turn, _ check: String) throws -> Metrics {
        guard let last = turn.metrics.last, last.finished else {
            throw ConformanceFailure(check: check, message: "the stream did not end with metrics marked finished")
        }
        try expect(!turn.eventAfterFinish, check, "events came after the finished metrics")
        return last
    }

    func expect(_ condition: Bool, _ check: String, _ message: @autoclosure () -> String) throws {
        if !condition { throw ConformanceFailure(check: check, message: message()) }
    }

    func within<T: Sendable>(_ bound: Duration, _ check: String, _ what: String,
                                     _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: bound); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ConformanceFailure(check: check, message: "\(what) within \(bound)")
            }
            return value
        }
    }
}
