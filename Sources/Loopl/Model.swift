/// A language model behind some runtime: the interface every backend implements.
///
/// Its events are parsed: ``ModelEvent/text(_:)`` is visible text, ``ModelEvent/reasoning(_:)``
/// thinking without its markup, ``ModelEvent/toolCall(_:)`` a complete call. A backend whose
/// engine writes markup streams through a ``LiftingContinuation``, which lifts it.
///
/// A model serves several requests at once, up to its backend's `parallel` count; later ones wait
/// in arrival order in a bounded queue, and one past it fails with ``LooplError/Code/busy``. Each
/// request is cancelled on its own, and an error that belongs to one request fails only that one.
public protocol Model: Sendable {
    /// The context size in tokens (a backend that starts lazily may start to answer).
    var contextSize: Int { get async throws }

    /// Streams one assistant turn for `messages`, offering `tools`.
    ///
    /// Ends with a `.metrics` event whose `finished` is true. Cancelling the consuming task stops
    /// the generation promptly. Errors are ``LooplError``s.
    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>

    /// Streams the model's continuation of `prompt`, tokenized as given with no chat template, as
    /// `.text` events (nothing lifted out of them) and a finished `.metrics` event.
    ///
    /// A backend that takes only messages fails with ``LooplError/Code/invalidRequest`` (the default).
    func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error>

    /// Releases the model's resources and ends any child process; calling it again does nothing.
    func close() async
}

extension Model {
    /// Fails with ``LooplError/Code/invalidRequest``: the backend takes only messages.
    public func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        .generating { _ in throw LooplError.messagesOnly("This backend") }
    }
}

extension LooplError {
    /// The error of a backend asked for a raw prompt that takes only chat messages; `who` names it.
    package static func messagesOnly(_ who: String) -> LooplError {
        LooplError(.invalidRequest, "\(who) takes only chat messages, not a raw prompt: send the request to /v1/chat/completions, or serve the model on a backend that tokenizes prompts (llama, a server child, a stdio worker that declares rawPrompt).")
    }
}
