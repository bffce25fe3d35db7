import Synchronization

/// The default route: a model that moves on to the next backend when the current one fails
/// before its first token (at start, or at the start of a turn), with a warning. After the first
/// token an error propagates: falling back mid-turn would repeat or lose text. When the current
/// backend's engine is lost mid-turn on two requests in a row (a turn and its retry), the route
/// moves on and says so in the error (``LooplError/EngineLoss/fellBack``), so that the ``Agent``
/// tries the turn again, from scratch, on the next backend.
///
final class FallbackModel: EmbeddingModel {
    typealias Candidate = (name: String, make: @Sendable () async throws -> any Model)

    private let state: Mutex<(current: any Model, name: String, rest: [Candidate], lostEngine: Bool)>
    private let warn: @Sendable (String) -> Void

    private init(current: any Model, name: String, rest: [Candidate], warn: @escaping @Sendable (String) -> Void) {
        state = Mutex((current, name, rest, false))
        self.warn = warn
    }

    /// Starts the first candidate that starts.
    static func start(_ candidates: [Candidate], warn: @escaping @Sendable (String) -> Void) async throws -> FallbackModel {
        var rest = candidates[...]
        var lastError: (any Error)?
        while let candidate = rest.popFirst() {
            do {
                let model = try await candidate.make()
                if let lastError { warn("Falling back to backend '\(candidate.name)': \(lastError)") }
                return FallbackModel(current: model, name: candidate.name, rest: Array(rest), warn: warn)
            } catch {
                lastError = LooplError(.processFailed, "backend '\(candidate.name)' failed: \(error)")
            }
        }
        throw lastError ?? LooplError(.invalidConfiguration, "No backend is configured.")
    }

    var contextSize: Int { get async throws { try await state.withLock { $0.current }.contextSize } }

    /// The backend in use now.
    var currentName: String { state.withLock { $0.name } }

    func generate(messages: [Message], tools: [ToolSpec], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        .generating { continuation in
            try await self.run(messages: messages, tools: tools, options: options, into: continuation)
        }
    }

    /// The current backend's raw completion (no fallback: a raw prompt is not retried elsewhere).
    func complete(prompt: String, options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
        state.withLock { $0.current }.complete(prompt: prompt, options: options)
    }

    /// The current backend's embeddings (no fallback: another backend's vectors are of another space).
    func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        try await state.withLock { $0.current }.embeddings(inputs, truncate: truncate)
    }

    private func run(messages: [Message], tools: [ToolSpec], options: GenerationOptions,
                     into continuation: AsyncThrowingStream<ModelEvent, any Error>.Continuation) async throws {
        while true {
            let model = state.withLock { $0.current }
            var started = false
            do {
                for try await event in model.generate(messages: messages, tools: tools, options: options) {
                    started = true
                    continuation.yield(event)
                }
                state.withLock { $0.lostEngine = false }
                return
            } catch {
                guard !Task.isCancelled, !(error is CancellationError) else { throw error }
                if !started, try await moveOn(after: error) { continue }
                guard let lost = error as? LooplError, lost.isEngineLoss, started else { throw error }
                let again = state.withLock { state in
                    defer { state.lostEngine = true }
                    return state.lostEngine
                }
                guard again, try await moveOn(after: error) else { throw error }
                throw LooplError(lost.code, lost.message + " Backend '\(currentName)' takes the turn.", underlying: lost.underlying, engineLoss: .fellBack)
            }
        }
    }

    /// Switches to the next backend that starts; false when none is left.
    private func moveOn(after error: any Error) async throws -> Bool {
        while let next = state.withLock({ $0.rest.isEmpty ? nil : $0.rest.removeFirst() }) {
            do {
                let model = try await next.make()
                let previous = state.withLock { state -> any Model in
                    defer { state.current = model; state.name = next.name; state.lostEngine = false }
                    return state.current
                }
                warn("Falling back to backend '\(next.name)': \(error)")
                await previous.close()
                return true
            } catch {
                continue
            }
        }
        return false
    }

    func close() async {
        await state.withLock { $0.current }.close()
    }
}
