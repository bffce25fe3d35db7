extension AsyncThrowingStream where Element == ModelEvent, Failure == any Error {
    /// A model's event stream fed by `body` in a task of its own: the stream finishes when `body`
    /// returns or throws, and the task is cancelled when the consumer stops listening.
    ///
    /// Whatever `body` throws reaches the consumer as a ``LooplError`` (a `CancellationError` as
    /// ``LooplError/Code/cancelled``), as the ``Model`` contract says.
    public static func generating(_ body: @escaping @Sendable (Continuation) async throws -> Void) -> Self {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await body(continuation)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: LooplError.wrapping(error, as: .generationFailed, "Generation failed: \(error)."))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
