import Foundation
import Loopl

/// A model's llama.cpp context and its ``DecodeLoop``, seen from the requests: hands each request
/// to the loop's thread and waits for it to end.
///
/// The loop has a thread of its own so that llama.cpp is always called from the same thread: its
/// allocations stay in one malloc arena, and ggml's main compute thread stays the same.
final class LlamaSession: Sendable {
    private let inbox = DecodeInbox()
    private let abort: BatchAbort
    /// The draft model's, when drafts come from one.
    private let draftAbort: BatchAbort?
    /// Each conversation's context length.
    let contextSize: Int
    /// The prompt states saved on disk; nil when the prompt cache is off.
    let promptCache: PromptCache?

    init(weights: LlamaWeights, configuration: LlamaModel.Configuration) throws {
        try configuration.speculative.check()
        let context = try LlamaContext(weights: weights, configuration: configuration)
        contextSize = context.contextSize
        guard context.dropsTail || configuration.speculative.kind == .none else {
            throw LooplError(.invalidConfiguration, "\(configuration.model) is a recurrent or hybrid model, whose rejected drafts cannot be dropped: remove 'speculative' from its configuration.")
        }
        abort = context.abort
        let modelDrafter = try ModelDrafter.load(for: weights, configuration: configuration)
        draftAbort = modelDrafter?.abort
        let promptCache = PromptCache(configuration: configuration, contextSize: context.contextSize)
        self.promptCache = promptCache
        let loop = DecodeLoop(weights: weights, context: context, inbox: inbox, sequences: configuration.resolvedParallel,
                              sharesPrefixes: configuration.sharePrefixes, alignment: configuration.alignment,
                              speculation: configuration.speculative, modelDrafter: modelDrafter,
                              promptCache: promptCache, interTokenBudget: configuration.interTokenBudget)
        Thread.start(named: "loopl llama") { loop.run() }
    }

    deinit {
        inbox.stop()
        abort.close()
        draftAbort?.close()
    }

    /// Serves `request` among the others, streaming its events; returns when it has ended.
    /// Cancelling the task drops it from the batch at the next step (at once when it is alone).
    func generate(_ request: LlamaRequest) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (completion: CheckedContinuation<Void, any Error>) in
                if !inbox.push(DecodeInbox.Arrival(request: request, completion: completion)) {
                    completion.resume(throwing: LooplError(.closed, "The model was closed; load it again."))
                }
            }
        } onCancel: {
            request.cancel()
        }
    }

    func observe(_ observer: (@Sendable (LlamaModel.Step) -> Void)?) {
        inbox.observe(observer)
    }

    /// Fails the requests under way with `closed` and frees the context.
    func close() async {
        inbox.stop()
        abort.close()
        draftAbort?.close()
        await inbox.close()
    }
}
