import CLlama
import Loopl

/// The one loop that decodes for every request on a model, on a thread of its own.
///
/// Each step evaluates the last sampled token of every sequence that is generating and the next
/// chunk of the prompts that arrived (while others generate, as many tokens as ``StepPlanner``
/// finds fit the inter-token budget, so that they keep streaming while a long prompt loads, in a
/// `llama_batch` of their own first), then samples the next token of every sequence whose logits
/// came out. ``UbatchPlan`` orders each batch into llama.cpp's passes. A request that is cancelled
/// or fails leaves the batch alone; the others go on.
final class DecodeLoop: @unchecked Sendable {
    // Sendable only to be handed to its thread, which is the only one to use it.

    private let weights: LlamaWeights
    private let context: LlamaContext
    private let inbox: DecodeInbox
    private let batch: TokenBatch
    private var table: SequenceTable
    /// The runs in arrival order, and by sequence.
    private var runs: [SequenceRun] = []
    private var bySequence: [SequenceRun?]
    /// The sequences that got a padding token in the batch.
    private var padded: [Bool]
    /// Whether a new prompt copies the prefix it shares with another sequence's (``PrefixShare``).
    private let sharesPrefixes: Bool
    /// How generating sequences draft tokens to verify in the same step.
    private let speculation: Speculation
    /// The draft model of the `draft` type.
    private let modelDrafter: ModelDrafter?
    /// Saved prompt states on disk, loaded instead of evaluating what a prompt shares with one.
    private let promptCache: PromptCache?
    /// How many prompt tokens each step takes, from what steps have cost.
    private var planner: StepPlanner
    /// The positions prompt chunks end at (multiples of it), and reuse is cut back to, when
    /// greedy output must not depend on what was reused (``LlamaModel/Configuration/reproducible``).
    private let alignment: Int?

    init(weights: LlamaWeights, context: LlamaContext, inbox: DecodeInbox, sequences: Int, sharesPrefixes: Bool = true, alignment: Int? = nil,
         speculation: Speculation = .none, modelDrafter: ModelDrafter? = nil, promptCache: PromptCache? = nil,
         interTokenBudget: Duration = .milliseconds(200)) {
        self.planner = StepPlanner(budget: interTokenBudget)
        self.sharesPrefixes = sharesPrefixes
        self.alignment = alignment
        self.modelDrafter = modelDrafter
        self.promptCache = promptCache
        self.speculation = speculation
        self.weights = weights
        self.context = context
        self.inbox = inbox
        self.batch = TokenBatch(capacity: context.batchSize)
        self.table = SequenceTable(count: sequences)
        self.bySequence = Array(repeating: nil, count: table.entries.count)
        self.padded = Array(repeating: false, count: table.entries.count)
    }

    /// Serves requests until the inbox stops, then fails those left and frees the context.
    func run() {
        while let pointer = context.pointer, let taken = inbox.take(wait: runs.isEmpty) {
            for arrival in taken.arrivals { admit(arrival) }
            guard !runs.isEmpty else { continue }
            let start = ContinuousClock.now
            var step = self.step(pointer, start: start)
            step.duration = .now - start
            runs.removeAll { $0.isDone }
            planner.record(promptTokens: step.promptTokens - step.chunkTokens, generating: step.generating > 0,
                           duration: step.duration - step.chunkDuration)
            planner.record(chunkTokens: step.chunkTokens, duration: step.chunkDuration)
            taken.observer?(step)
        }
        let closed = LooplError(.closed, "The model was closed during the generation.")
        for run in runs { run.completion.resume(throwing: closed) }
        runs = []
        bySequence = []
        saveConversations()
        promptCache?.flush()
        modelDrafter?.free()
        context.free()
        inbox.finish(failing: LooplError(.closed, "The model was closed; load it again."))
    }

    /// Saves, as the model closes (an unload), each sequence that extends a saved prompt (its
    /// answer after its prompt), in place of that prompt where it serves all the prompt did: the
    /// next turn of the conversation, after a load, loads it instead of evaluating the answer again.
    private func saveConversations() {
        guard let promptCache, let pointer = context.pointer else { return }
        for (sequence, entry) in table.entries.enumerated() where !entry.tokens.isEmpty {
            promptCache.save(sequence: sequence, tokens: entry.tokens, context: pointer, extending: true, serves: serves)
        }
    }

    /// Gives a new request a sequence: its conversation's, keeping the longest prefix the
    /// sequence shares with the prompt (at least one token is evaluated, for fresh logits), or
    /// a longer one copied from another sequence (``share(_:)``).
    private func admit(_ arrival: DecodeInbox.Arrival) {
        let request = arrival.request
        guard !request.isCancelled else { return arrival.completion.resume(throwing: CancellationError()) }
        guard let sequence = table.claim(conversation: request.options.conversation, prompt: request.prompt) else {
            return arrival.completion.resume(throwing: LooplError(.busy, "Every sequence of the model is serving a request."))
        }
        var reused = SequenceTable.commonPrefix(table.entries[sequence].tokens, request.prompt)
        if reused == request.prompt.count { reused -= 1 }
        reused = aligned(reused, in: sequence)
        if !reusable(sequence, prefix: reused) || !context.forget(sequence, from: reused) {
            context.forget(sequence, from: 0)
            reused = 0
        }
        table.entries[sequence].tokens.removeSubrange(reused...)
        table.entries[sequence].aligned = min(table.entries[sequence].aligned, reused)
        let run = SequenceRun(request, completion: arrival.completion, sequence: sequence, reused: reused,
                              contextSize: context.contextSize)
        run.drafter = NGramDrafter(speculation)
        runs.append(run)
        bySequence[sequence] = run
        share(run)
        restore(run)
    }

    /// Loads into `run`'s sequence the saved state that holds the most of its prompt, when that
    /// is ``PrefixShare/minimum`` tokens more than the sequence holds; a file that cannot be used
    /// leaves the sequence empty, and the whole prompt is evaluated.
    private func restore(_ run: SequenceRun) {
        guard let promptCache, let pointer = context.pointer, run.isEvaluatingPrompt else { return }
        let prompt = run.request.prompt
        let own = table.entries[run.sequence].tokens.count
        guard let saved = promptCache.longestPrefix(of: prompt, limit: prompt.count - 1, usable: serves) else { return }
        let length = aligned(saved.length)
        guard length >= own + PrefixShare.minimum else { return }
        var loaded = promptCache.load(saved.name, length: length, prompt: prompt, into: run.sequence, context: pointer)
        if loaded, !context.holdsWindow(run.sequence, before: length) {
            context.forget(run.sequence, from: 0)
            loaded = false
        }
        table.entries[run.sequence].tokens = loaded ? Array(prompt[..<length]) : []
        table.entries[run.sequence].aligned = loaded ? length : 0
        run.start(cached: loaded ? length : 0)
    }

    /// Whether a saved state of `saved` tokens serves a prompt that shares `shared` of them: a
    /// recurrent model's state only whole, a windowed model's only where its last window suffices.
    private func serves(saved: Int, shared: Int) -> Bool {
        let shared = aligned(shared), window = context.window
        return (context.dropsTail || shared == saved)
            && (window == 0 || max(0, saved - window) <= LlamaContext.oldestNeeded(before: shared, window: window))
    }

    /// Copies into `run`'s sequence the longest prefix of its prompt another sequence holds, when
    /// that saves ``PrefixShare/minimum`` tokens, or has it wait while another request evaluates
    /// a prompt that will hold more of it; otherwise it evaluates from its own cells.
    private func share(_ run: SequenceRun) {
        guard sharesPrefixes else { return }
        let prompt = run.request.prompt
        let own = table.entries[run.sequence].tokens.count
        let held = table.longestPrefix(of: prompt, excluding: run.sequence, limit: prompt.count - 1,
                                        cut: { aligned($1, in: $0) }) { reusable($0, prefix: $1) }
        let coming = runs.lazy.filter { $0 !== run && $0.isEvaluatingPrompt }
            .map { min(SequenceTable.commonPrefix($0.request.prompt, prompt), prompt.count - 1) }.max() ?? 0
        switch PrefixShare.source(own: own, held: held, coming: coming) {
        case .wait:
            run.waitForPrefix()
        case .copy(let source, let length):
            context.copy(source, to: run.sequence, keeping: length)
            table.entries[run.sequence].tokens = Array(prompt[..<length])
            table.entries[run.sequence].aligned = length
            run.start(cached: length)
        case .own:
            if run.isWaitingForPrefix { run.start(cached: own) }
        }
    }

    /// Whether `sequence`'s cells serve a prompt that shares its first `length` tokens, from there
    /// on: a recurrent state only when it holds no more than those, a sliding window only when
    /// its cells before `length` are still held. Otherwise what is missing is evaluated.
    private func reusable(_ sequence: Int, prefix length: Int) -> Bool {
        (context.dropsTail || length == table.entries[sequence].tokens.count) && context.holdsWindow(sequence, before: length)
    }

    /// `length` cut back to a multiple of the alignment, and to what `sequence`'s cells hold as a
    /// fresh evaluation would have evaluated it, when prompts are aligned; `length` otherwise.
    private func aligned(_ length: Int, in sequence: Int? = nil) -> Int {
        guard let alignment else { return length }
        let exact = sequence.map { min(table.entries[$0].aligned, table.entries[$0].tokens.count) } ?? length
        return min(length, exact) / alignment * alignment
    }

    /// The next chunk of a prompt whose sequence holds `position` tokens, at most `share`: when
    /// prompts are aligned, one that ends at the next multiple of the alignment at the latest.
    private func chunk(_ share: Int, at position: Int) -> Int {
        guard let alignment else { return share }
        return min(share, alignment - position % alignment)
    }

    /// One batch built, decoded and sampled.
    private func step(_ pointer: OpaquePointer, start: ContinuousClock.Instant) -> LlamaModel.Step {
        for run in runs where run.request.isCancelled { end(run, .cancelled) }
        for run in runs where run.isWaitingForPrefix {
            share(run)
            restore(run)
        }
        var step = LlamaModel.Step()
        var room = context.promptBatch
        let generating = runs.count { if case .generating = $0.phase { true } else { false } }
        let drafting = modelDrafter?.evaluated ?? 0
        let modelDrafts = self.modelDrafts(room: room)
        step.draftModelTokens = (modelDrafter?.evaluated ?? 0) - drafting
        for run in runs {
            guard case .generating(let token) = run.phase else { continue }
            run.draft = modelDrafts?[run.sequence] ?? draft(for: run, after: token, room: room, crowded: generating > 1)
            room -= run.draft.count
            run.inBatch = 1 + run.draft.count
        }
        // Prompts share the room left, in chunks that fit the budget while others generate.
        let prompts = runs.filter(\.isEvaluatingPrompt)
        let shares = planner.plan(room: room, generating: generating > 0, prompts: prompts.map(\.unevaluated))
        for (run, share) in zip(prompts, shares) where share > 0 {
            run.inBatch = run.startChunk(limit: chunk(share, at: table.entries[run.sequence].tokens.count), now: start)
        }
        guard decodePasses(pointer, generating: generating > 0, start: start, step: &step) else { return step }
        let now = ContinuousClock.now
        let evaluatedPrompts = record(now: now)
        for run in runs {
            guard let index = run.output else { continue }
            run.output = nil
            verify(run, at: index, in: pointer, now: now)
        }
        // After the first tokens are sampled, before the next decode changes the sequences.
        for sequence in evaluatedPrompts {
            promptCache?.save(sequence: sequence, tokens: table.entries[sequence].tokens, context: pointer, serves: serves)
        }
        return step
    }

    /// Decodes the step's tokens: while sequences generate, the chunks that do not end their
    /// prompt first, in a pass of their own (llama.cpp evaluates the sequences of one pass over
    /// the cells of the deepest, so a generated token beside a long prompt would attend over its
    /// depth), then the rest. A pass that fails fails its runs only. False when there was
    /// nothing to decode.
    private func decodePasses(_ pointer: OpaquePointer, generating: Bool, start: ContinuousClock.Instant,
                              step: inout LlamaModel.Step) -> Bool {
        let apart = Set(runs.filter { generating && $0.inBatch > 0 && $0.inBatch < $0.unevaluated }.map(\.sequence))
        if !apart.isEmpty {
            let chunks = fill { apart.contains($0.sequence) }
            let decoded = decodePass(pointer, chunks, step: &step)
            step.chunkDuration = .now - start
            if decoded { step.chunkTokens = chunks.reduce(0) { $0 + $1.tokens } }
        }
        let entries = fill(padding: { !apart.contains($0) }) { !apart.contains($0.sequence) }
        guard batch.count > 0 else { return !apart.isEmpty }
        _ = decodePass(pointer, entries, step: &step)
        return true
    }

    /// The batch was evaluated: each run's tokens join its sequence; returns the sequences whose
    /// prompts are now evaluated whole.
    private func record(now: ContinuousClock.Instant) -> [Int] {
        var evaluatedPrompts: [Int] = []
        for run in runs where run.inBatch > 0 {
            switch run.phase {
            case .generating(let token): table.entries[run.sequence].tokens.append(token)
            case .prompt(let unevaluated):
                // A whole chunk from the aligned start is evaluated as a fresh evaluation would.
                if table.entries[run.sequence].aligned == table.entries[run.sequence].tokens.count, run.inBatch == alignment {
                    table.entries[run.sequence].aligned += run.inBatch
                }
                table.entries[run.sequence].tokens.append(contentsOf: unevaluated.prefix(run.inBatch))
                if unevaluated.count == run.inBatch { evaluatedPrompts.append(run.sequence) }
            case .sampling, .waitingForPrefix, .done: break
            }
            run.evaluated(now: now)
        }
        return evaluatedPrompts
    }

    /// Fills the batch with the tokens of the runs `included`, each run's tokens together, in the
    /// passes ``UbatchPlan`` finds cheapest. A sequence between two of a pass that has nothing in
    /// it gets a padding token where `padding` allows, dropped after the step, so that a gap
    /// never splits the pass. Returns what each sequence put in, in the batch's order.
    private func fill(padding: (Int) -> Bool = { _ in false }, _ included: (SequenceRun) -> Bool) -> [LlamaModel.Step.Entry] {
        batch.clear()
        let span = runs.filter { $0.inBatch > 0 && included($0) }.map(\.sequence)
        guard let first = span.min(), let last = span.max() else { return [] }
        let slots = (first...last).map { sequence -> UbatchPlan.Slot in
            let position = table.entries[sequence].tokens.count
            if let run = bySequence[sequence], run.inBatch > 0, included(run) {
                return .tokens(count: run.inBatch, depth: UbatchPlan.cells(position + run.inBatch))
            }
            return context.dropsTail && padding(sequence) ? .padding(depth: UbatchPlan.cells(position + 1)) : .barrier
        }
        var entries: [LlamaModel.Step.Entry] = []
        for range in context.ubatches.ranges(slots) {
            for sequence in range.map({ first + $0 }) {
                guard let run = bySequence[sequence], run.inBatch > 0, included(run) else {
                    padded[sequence] = true
                    batch.add(table.entries[sequence].tokens.last ?? 0, at: table.entries[sequence].tokens.count,
                              of: Int32(sequence), logits: false)
                    continue
                }
                if let entry = add(run) { entries.append(entry) }
            }
        }
        return entries
    }

    /// Adds `run`'s tokens to the batch: its last sampled token and its draft, or its prompt's
    /// next chunk (with logits for its last token when the chunk ends the prompt).
    private func add(_ run: SequenceRun) -> LlamaModel.Step.Entry? {
        let sequence = run.sequence, position = table.entries[sequence].tokens.count
        if case .generating(let token) = run.phase {
            run.output = batch.add(token, at: position, of: Int32(sequence), logits: true)
            for (offset, drafted) in run.draft.enumerated() {
                batch.add(drafted, at: position + 1 + offset, of: Int32(sequence), logits: true)
            }
            return .init(sequence: sequence, kind: .generated, tokens: 1 + run.draft.count)
        }
        guard case .prompt(let unevaluated) = run.phase else { return nil }
        let completes = run.inBatch == unevaluated.count
        for (offset, token) in unevaluated.prefix(run.inBatch).enumerated() {
            let last = completes && offset == run.inBatch - 1
            let index = batch.add(token, at: position + offset, of: Int32(sequence), logits: last)
            if last { run.output = index }
        }
        return .init(sequence: sequence, kind: .prompt, tokens: run.inBatch)
    }

    /// Drops the padding tokens' cells.
    private func forgetPadding() {
        for sequence in padded.indices where padded[sequence] {
            context.forget(sequence, from: table.entries[sequence].tokens.count)
            padded[sequence] = false
        }
    }

    /// The tokens `run` drafts after `token` (evaluated next), at most `room` and what its
    /// context has left.
    private func draft(for run: SequenceRun, after token: llama_token, room: Int, crowded: Bool) -> [llama_token] {
        guard speculation.kind == .ngram else { return [] }
        let limit = draftLimit(run, room: room)
        guard limit > 0 else { return [] }
        return run.drafter.draft(after: table.entries[run.sequence].tokens + [token], limit: limit, crowded: crowded)
    }

    /// The most tokens `run` may draft: the room left in the batch, in its context and in its budget.
    private func draftLimit(_ run: SequenceRun, room: Int) -> Int {
        min(room, context.contextSize - table.entries[run.sequence].tokens.count - 1,
            run.request.budget - run.metrics.generatedTokens - 1)
    }

    /// The draft model's drafts for the generating runs, by sequence, at least `draftMin` tokens
    /// or none; nil without a draft model.
    private func modelDrafts(room: Int) -> [Int: [llama_token]]? {
        guard let modelDrafter else { return nil }
        var room = room
        var requests: [ModelDrafter.Request] = []
        for run in runs {
            guard case .generating(let token) = run.phase else { continue }
            let limit = min(draftLimit(run, room: room), speculation.draftMax)
            guard limit >= speculation.draftMin else { continue }
            room -= limit
            requests.append(.init(sequence: run.sequence, history: table.entries[run.sequence].tokens + [token], limit: limit))
        }
        let drafts = modelDrafter.drafts(requests, serving: runs.map(\.request))
        return Dictionary(uniqueKeysWithValues: zip(requests.map(\.sequence), drafts.map { $0.count >= speculation.draftMin ? $0 : [] }))
    }

    /// Samples `run`'s next tokens from the logits from `index` on: one, and one more for each
    /// drafted token the sampler chose in turn. The cells of the drafted tokens it did not
    /// choose are dropped. Each token is sampled as without drafting, so the output is the same.
    private func verify(_ run: SequenceRun, at index: Int32, in pointer: OpaquePointer, now: ContinuousClock.Instant) {
        let draft = run.draft
        run.draft = []
        run.metrics.draftTokens += draft.count
        var held = 0
        while true {
            let drafted = held < draft.count ? draft[held] : nil
            guard let token = sample(run, at: index + Int32(held), in: pointer, now: now, drafted: drafted), token == drafted else { break }
            table.entries[run.sequence].tokens.append(token)
            held += 1
        }
        guard !draft.isEmpty else { return }
        run.drafter.record(drafted: draft.count, accepted: held)
        context.forget(run.sequence, from: table.entries[run.sequence].tokens.count)
    }

    /// Samples `run`'s next token from the logits at `index` of the batch just decoded, counted
    /// as accepted when it is the `drafted` one; returns it when the run goes on.
    private func sample(_ run: SequenceRun, at index: Int32, in pointer: OpaquePointer, now: ContinuousClock.Instant,
                        drafted: llama_token? = nil) -> llama_token? {
        guard run.request.budget > 0 else {
            end(run, .maxTokens)
            return nil
        }
        guard let logits = llama_get_logits_ith(pointer, index) else {
            fail(run, LooplError(.generationFailed, "llama.cpp returned no logits."))
            return nil
        }
        do {
            let token = try run.next(logits: logits, weights: weights)
            if token == drafted { run.metrics.acceptedDraftTokens += 1 }
            let cached = table.entries[run.sequence].tokens.count
            if let reason = run.take(token, weights: weights, cached: cached, now: now) {
                end(run, reason)
                return nil
            }
            return token
        } catch {
            fail(run, error)
            return nil
        }
    }

    /// The batch failed: its sequences lose what it added. Aborted, it was closing or every
    /// request in it was cancelled, and the next step deals with them; otherwise they fail.
    /// Decodes the batch of `entries`, watching its requests for cancellation, and drops its
    /// padding: the entries join the step's record, or their runs fail.
    private func decodePass(_ pointer: OpaquePointer, _ entries: [LlamaModel.Step.Entry], step: inout LlamaModel.Step) -> Bool {
        context.abort.watch(runs.lazy.filter { $0.inBatch > 0 }.map(\.request))
        let status = batch.decode(in: pointer)
        forgetPadding()
        if status == .ok { step.batch += entries } else { failed(status, in: Set(entries.map(\.sequence))) }
        return status == .ok
    }

    /// A pass of the `sequences` failed: their runs lose what they had in it.
    private func failed(_ status: DecodeStatus, in sequences: Set<Int>) {
        for run in runs where run.inBatch > 0 && sequences.contains(run.sequence) {
            context.forget(run.sequence, from: table.entries[run.sequence].tokens.count)
            run.lostBatch()
            guard status != .aborted else { continue }
            fail(run, LooplError(.generationFailed, "llama_decode \(status.reason) after \(table.entries[run.sequence].tokens.count) tokens of this conversation."))
        }
    }

    private func end(_ run: SequenceRun, _ reason: Metrics.StopReason) {
        run.finish(reason, cached: table.entries[run.sequence].tokens.count)
        release(run)
        run.completion.resume()
    }

    private func fail(_ run: SequenceRun, _ error: any Error) {
        release(run)
        run.completion.resume(throwing: error)
    }

    private func release(_ run: SequenceRun) {
        table.release(run.sequence)
        bySequence[run.sequence] = nil
        run.close()
    }
}
