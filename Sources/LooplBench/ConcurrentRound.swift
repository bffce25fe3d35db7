import Loopl

/// One stream of a concurrent round as the host saw it, in milliseconds from a common origin.
struct StreamTiming: Sendable, Equatable {
    /// When `generate` was called.
    var startMs: Double
    /// When each content event (text, reasoning, a tool call) arrived; one per token as a rule.
    var eventMs: [Double]
    /// When the stream ended (its final metrics).
    var endMs: Double
    /// Tokens generated, from the final metrics.
    var generatedTokens: Int
    var promptTokens: Int
    var cachedPromptTokens: Int

    /// Request to first token.
    var ttftMs: Double? { eventMs.first.map { $0 - startMs } }

    /// Tokens after the first over the time from the first to the last.
    var decodeTokensPerSecond: Double? {
        guard generatedTokens > 1, let first = eventMs.first, let last = eventMs.last, last > first else { return nil }
        return Double(generatedTokens - 1) / ((last - first) / 1000)
    }

    /// The gaps between consecutive events.
    var interTokenMs: [Double] { zip(eventMs.dropFirst(), eventMs).map { $0 - $1 } }

    /// Runs a generation to its end, timed from `origin`: its final metrics and its timing.
    /// `started` is called at its first content event (or at its end when none came).
    static func run(from origin: ContinuousClock.Instant, started: @Sendable () -> Void = {},
                    _ generate: () -> AsyncThrowingStream<ModelEvent, any Error>) async throws -> (metrics: Metrics, timing: StreamTiming) {
        func since(_ instant: ContinuousClock.Instant) -> Double { (instant - origin).milliseconds }
        let start = since(.now)
        var events: [Double] = []
        var last: Metrics?
        do {
            for try await event in generate() {
                switch event {
                case .text(let text) where text.isEmpty: break
                case .text, .reasoning, .toolCall:
                    events.append(since(.now))
                    if events.count == 1 { started() }
                case .metrics(let metrics): last = metrics
                }
            }
        } catch {
            if events.isEmpty { started() }
            throw error
        }
        if events.isEmpty { started() }
        guard let last, last.finished else { throw LooplError(.protocolViolation, "The backend sent no final metrics.") }
        return (last, StreamTiming(startMs: start, eventMs: events, endMs: since(.now), generatedTokens: last.generatedTokens,
                                   promptTokens: last.promptTokens, cachedPromptTokens: last.cachedPromptTokens))
    }

    /// The tokens that arrived after `instant`. An event is one token when there are as many
    /// events as tokens; otherwise each event counts for `generatedTokens / events` of them.
    func tokens(after instant: Double) -> Double {
        guard !eventMs.isEmpty else { return 0 }
        let later = eventMs.count { $0 > instant }
        return Double(later) * Double(generatedTokens) / Double(eventMs.count)
    }
}

/// N streams started together on one model: their decode phase measured as llama-batched-bench
/// measures S_TG.
///
/// The decode phase runs from the moment every prompt is evaluated (the last of the N streams
/// has its first token) to the moment the last stream has its last token; the aggregate is the
/// tokens that arrived in it (after its start, so no stream's first token, which its prompt's
/// evaluation gave, counts) over its length. With one stream it is the stream's own decode speed.
struct ConcurrentRound: Sendable, Equatable {
    var streams: [StreamTiming]

    init(streams: [StreamTiming]) {
        self.streams = streams
    }

    /// The start of the decode phase: the last first token.
    var decodeStartMs: Double? { streams.compactMap(\.eventMs.first).max() }

    /// The end of the decode phase: the last token of all.
    var decodeEndMs: Double? { streams.compactMap(\.eventMs.last).max() }

    /// Tokens generated per second by all streams together in the decode phase; nil when the
    /// phase has no length (one token per stream) or a stream produced nothing.
    var aggregateDecode: Double? {
        guard streams.allSatisfy({ !$0.eventMs.isEmpty }), let start = decodeStartMs, let end = decodeEndMs, end > start else { return nil }
        let tokens = streams.map { $0.tokens(after: start) }.reduce(0, +)
        return tokens / ((end - start) / 1000)
    }

    /// From the first request to the last stream's end.
    var wallMs: Double {
        guard let start = streams.map(\.startMs).min(), let end = streams.map(\.endMs).max() else { return 0 }
        return end - start
    }

    // MARK: - Running

    private static let subjects = ["fox", "dog", "cat", "owl", "bee", "cow", "pig", "hen", "wolf", "bear", "duck", "goat", "frog", "lion",
                                   "deer", "crow"]
    private static let places = ["forest", "city", "desert", "river", "garden", "village", "mountain", "castle"]

    /// `count` different prompts of the same length (every word one token of the default model),
    /// from the `offset`th on, each followed by `padding`: up to 128 distinct ones, then they repeat.
    static func prompts(count: Int, offset: Int = 0, padding: String = "") -> [[Message]] {
        (offset..<offset + count).map { [.user("Tell me a long story about the \(topic($0))." + (padding.isEmpty ? "" : " " + padding))] }
    }

    /// The subject and place of prompt `index`: "fox in the forest".
    static func topic(_ index: Int) -> String {
        "\(subjects[index % subjects.count]) in the \(places[index / subjects.count % places.count])"
    }

    /// Starts every prompt at once on `model`, each as its own conversation (`conversation`-1,
    /// -2, ...), and times each stream to its end.
    init(running prompts: [[Message]], on model: any Model, options: GenerationOptions, conversation: String) async throws {
        let origin = ContinuousClock.now
        let timings = try await withThrowingTaskGroup(of: (Int, StreamTiming).self) { group in
            for (index, messages) in prompts.enumerated() {
                var streamOptions = options
                streamOptions.conversation = "\(conversation)-\(index + 1)"
                group.addTask { [streamOptions] in
                    (index, try await StreamTiming.run(from: origin) { model.generate(messages: messages, tools: [], options: streamOptions) }.timing)
                }
            }
            var timings: [(Int, StreamTiming)] = []
            for try await timing in group { timings.append(timing) }
            return timings.sorted { $0.0 < $1.0 }.map(\.1)
        }
        self.init(streams: timings)
    }
}
