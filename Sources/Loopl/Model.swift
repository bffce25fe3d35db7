/// How a model hands back tool calls.
public enum ToolCallStyle: Sendable, Hashable {
    /// The backend emits `ModelEvent.toolCall` itself.
    case native
    /// The backend emits the model's raw text, markup included (and first the thinking marker its
    /// prompt opened, if it did); the caller lifts the calls with ``ToolCallParser`` of this format.
    case text(ToolCallFormat)
}

/// A language model behind some runtime: the interface every backend implements.
///
/// A model serves several requests at once, up to its backend's `parallel` count; later ones wait
/// in arrival order in a bounded queue, and one past it fails with ``LooplError/Code/busy``. Each
/// request is cancelled on its own, and an error that belongs to one request fails only that one.
public protocol Model: Sendable {
    /// How this model hands back tool calls.
    var toolCallStyle: ToolCallStyle { get }

    /// The context size in tokens (a backend that starts lazily may start to answer).
    var contextSize: Int { get async throws }

    /// Streams one assistant turn for `messages`, offering `tools`.
    ///
    /// Ends with a `.metrics` event whose `finished` is true. Cancelling the consuming task stops
    /// the generation promptly. Errors are ``LooplError``s.
    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions)
        -> AsyncThrowingStream<ModelEvent, any Error>

    /// Releases the model's resources and ends any child process; calling it again does nothing.
    func close() async
}
