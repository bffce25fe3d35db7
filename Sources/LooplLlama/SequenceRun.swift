import CLlama
import Loopl

/// A request while the decode loop serves it in a sequence of its own: where it is (its ``Phase``),
/// its text, stop strings and metrics.
final class SequenceRun {
    /// Where a run is between two decode steps.
    enum Phase {
        /// Evaluating its prompt: the tokens not in the cache yet.
        case prompt(ArraySlice<llama_token>)
        /// Its batch was evaluated and its logits came out: its next token is to be sampled.
        case sampling
        /// Generating: the last sampled token, to evaluate in the next step.
        case generating(llama_token)
        /// Waiting for another request to evaluate the start of its prompt, to copy those cells.
        case waitingForPrefix
        /// Ended or failed: the loop drops it after the step.
        case done
    }

    let request: LlamaRequest
    let completion: CheckedContinuation<Void, any Error>
    /// Its sequence in the ``SequenceTable``, which is also its llama.cpp `seq_id`.
    let sequence: Int
    private(set) var phase: Phase
    /// The tokens this run has in the batch being built, and where its logits will be.
    var inBatch = 0
    var output: Int32?
    /// Drafts its next tokens, and the draft in the batch being built (after its last sampled token).
    var drafter = NGramDrafter(.none)
    var draft: [llama_token] = []
    var metrics: Metrics
    private var text = UTF8Assembler()
    private var stops: StopStringFilter
    /// Counts the thinking tokens, and gives the closing marker once the budget is spent.
    private var reasoningBudget: ReasoningBudget
    /// The closing marker's tokens still to write, one a step, instead of sampled ones.
    private var forced: [llama_token] = []
    private var promptStart: ContinuousClock.Instant?
    private var firstToken: ContinuousClock.Instant?
    private var lastReport: ContinuousClock.Instant

    init(_ request: LlamaRequest, completion: CheckedContinuation<Void, any Error>, sequence: Int, reused: Int, contextSize: Int) {
        self.request = request
        self.completion = completion
        self.sequence = sequence
        phase = .prompt(request.prompt[reused...])
        metrics = Metrics(promptTokens: request.prompt.count, cachedPromptTokens: reused, contextMax: contextSize)
        stops = StopStringFilter(stops: request.options.stop)
        reasoningBudget = request.reasoningBudget
        lastReport = request.start
    }

    var isDone: Bool {
        if case .done = phase { true } else { false }
    }

    /// Waits for another prompt to be evaluated, to copy the prefix it shares.
    func waitForPrefix() {
        phase = .waitingForPrefix
    }

    /// Its sequence holds the first `cached` tokens of its prompt (its own or copied): it
    /// evaluates the rest, and its metrics count them as cached.
    func start(cached: Int) {
        phase = .prompt(request.prompt[cached...])
        metrics.cachedPromptTokens = cached
    }

    var isWaitingForPrefix: Bool {
        if case .waitingForPrefix = phase { true } else { false }
    }

    var isEvaluatingPrompt: Bool {
        if case .prompt = phase { true } else { false }
    }

    /// The prompt tokens it has still to evaluate; 0 when it is not evaluating its prompt.
    var unevaluated: Int {
        if case .prompt(let tokens) = phase { tokens.count } else { 0 }
    }

    /// How many prompt tokens it puts in the batch now, at most `limit`; the first chunk at `now`.
    func startChunk(limit: Int, now: ContinuousClock.Instant) -> Int {
        guard case .prompt(let unevaluated) = phase else { return 0 }
        if promptStart == nil { promptStart = now }
        return min(limit, unevaluated.count)
    }

    /// The batch was evaluated: the tokens it held for this run are in the cache now.
    func evaluated(now: ContinuousClock.Instant) {
        switch phase {
        case .generating:
            phase = .sampling
        case .prompt(var unevaluated):
            unevaluated.removeFirst(inBatch)
            if unevaluated.isEmpty, let promptStart { metrics.promptEvalMs = (now - promptStart).milliseconds }
            phase = unevaluated.isEmpty ? .sampling : .prompt(unevaluated)
        case .sampling, .waitingForPrefix, .done:
            break
        }
        inBatch = 0
    }

    /// The batch failed: none of the tokens it held for this run reached the cache.
    func lostBatch() {
        inBatch = 0
        output = nil
        draft = []
    }

    /// Ended or failed: it leaves the batch and the loop.
    func close() {
        phase = .done
        inBatch = 0
        output = nil
        draft = []
    }

    /// Its next token: sampled from `logits`, or the next of the closing marker's tokens when the
    /// thinking budget is spent. When the request ignores the end of generation, no token that
    /// ends one is picked, as llama-server's `ignore_eos` (they would write nothing).
    func next(logits: UnsafeMutablePointer<Float>, weights: LlamaWeights) throws -> llama_token {
        if request.options.backend.ignoreEndOfGeneration { weights.excludeEndOfGeneration(from: logits) }
        if forced.isEmpty, let close = reasoningBudget.closing() { forced = weights.tokenize(close, addSpecial: false) }
        return forced.isEmpty ? try request.sampler.sample(logits: logits) : try request.sampler.force(forced.removeFirst())
    }

    /// Takes the token sampled for it; returns why the generation ends, or nil to go on with
    /// `token` evaluated next. `cached` is the sequence's length, for the metrics.
    func take(_ token: llama_token, weights: LlamaWeights, cached: Int, now: ContinuousClock.Instant) -> Metrics.StopReason? {
        if firstToken == nil {
            firstToken = now
            metrics.ttftMs = (now - request.start).milliseconds
            for token in request.lead { write(weights.piece(token)) }
        }
        if weights.isEndOfGeneration(token), !request.options.backend.ignoreEndOfGeneration { return .endTurn }
        metrics.generatedTokens += 1
        write(weights.piece(token))
        if stops.stopped { return .stop }
        if request.events.repeatedCall { return .endTurn }
        if metrics.generatedTokens >= request.budget { return .maxTokens }
        phase = .generating(token)
        if now - lastReport >= .milliseconds(250) {
            lastReport = now
            request.events.yield(.metrics(report(cached: cached, now: now)))
        }
        return nil
    }

    /// Streams a token's text, past the stop strings, counting it against the thinking budget.
    private func write(_ bytes: [UInt8]) {
        let piece = text.append(bytes)
        reasoningBudget.record(piece)
        metrics.reasoningTokens = reasoningBudget.tokens
        let visible = stops.feed(piece)
        if !visible.isEmpty { request.events.yield(.text(visible)) }
    }

    /// Streams what the stop strings held back and the final metrics.
    func finish(_ reason: Metrics.StopReason, cached: Int) {
        if !stops.stopped {
            let rest = stops.feed(text.flush()) + stops.flush()
            if !rest.isEmpty { request.events.yield(.text(rest)) }
        }
        metrics.finished = true
        metrics.stopReason = reason
        request.events.yield(.metrics(report(cached: cached, now: .now)))
    }

    private func report(cached: Int, now: ContinuousClock.Instant) -> Metrics {
        var metrics = metrics
        metrics.contextUsed = cached
        if let firstToken, metrics.generatedTokens > 1 {
            let seconds = (now - firstToken).seconds
            if seconds > 0 { metrics.tokensPerSecond = Double(metrics.generatedTokens - 1) / seconds }
        }
        return metrics
    }
}
