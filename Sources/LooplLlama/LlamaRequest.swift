import CLlama
import Loopl
import Synchronization

/// One generation handed to the decode loop: its prompt, how to sample it, where its events go,
/// and whether its caller has cancelled it.
final class LlamaRequest: Sendable {
    /// The rendered prompt and then ``lead``.
    let prompt: [llama_token]
    /// The start of the answer that the grammar forces, evaluated with the prompt instead of
    /// sampled (all but the last token of ``Grammar/lead``, so that the model still picks the
    /// token that joins it to what follows). The run writes it out before its first token.
    let lead: [llama_token]
    let options: GenerationOptions
    let sampler: LlamaSampler
    /// The thinking budget as the generation starts.
    let reasoningBudget: ReasoningBudget
    /// The most tokens to generate.
    let budget: Int
    let events: LiftingContinuation
    /// When the backend took it up (before it rendered the prompt), for the time to first token.
    let start: ContinuousClock.Instant
    private let cancelled = Atomic(false)

    /// Checks that `prompt` and the tokens asked for fit in a conversation's `contextSize`
    /// (``LooplError/Code/contextOverflow`` when they do not), then makes its sampler.
    init(prompt: [llama_token], options: GenerationOptions, grammar: Grammar?, reasoningBudget: ReasoningBudget,
         weights: LlamaWeights, contextSize: Int, events: LiftingContinuation, start: ContinuousClock.Instant = .now) throws {
        guard !prompt.isEmpty else { throw LooplError(.invalidRequest, "The prompt is empty.") }
        let sampler = try LlamaSampler(options: options, weights: weights, grammar: grammar)
        let forced = grammar.map { weights.tokenize($0.lead, addSpecial: false).dropLast() } ?? []
        lead = sampler.takeLead(Array(forced))
        let prompt = prompt + lead
        let budget = options.maxTokens ?? (contextSize - prompt.count)
        guard prompt.count + max(budget, 1) <= contextSize else {
            throw LooplError(.contextOverflow, "The prompt has \(prompt.count) tokens and \(max(budget, 1)) more were asked for, but the context holds \(contextSize). Shorten the conversation, lower maxTokens, or load the model with a larger context.")
        }
        self.prompt = prompt
        self.options = options
        self.sampler = sampler
        self.budget = budget
        self.reasoningBudget = reasoningBudget
        self.events = events
        self.start = start
    }

    /// The caller stopped listening; the loop drops the request at its next step.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
}
