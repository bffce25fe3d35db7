import Loopl

/// A backend's model as `loopl serve` runs it: each request under the backend's ``ModelLimit``,
/// and counted in the ``ServeMetrics``.
struct ServedModel: Sendable {
    let backend: String
    /// The name its answers report: the one the request gave, else the backend's.
    let name: String
    /// The model as it was when the request started it; each run takes the directory's current
    /// one in its place, so a model unloaded meanwhile is loaded again.
    let model: any Model
    let directory: ModelDirectory
    let limit: ModelLimit
    let metrics: ServeMetrics
    /// The request's `keep_alive`: how long the model stays loaded after it; nil: the backend's.
    var keepAlive: KeepAlive?

    /// Streams the events of `generate` into `consume` until it returns false (then only the final
    /// metrics follow it) or the stream ends, in a place of the backend's limit. An engine lost
    /// before the first text, thinking or call is tried once more, as an agent retries a turn.
    func run(_ generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error>,
             consume: (ModelEvent) async throws -> Bool) async throws {
        do {
            try await limit.withPlace {
                try await attempts(on: try await directory.model(for: backend), generate, consume: consume)
            }
            await directory.finished(backend, keepAlive: keepAlive)
            metrics.finished(backend, status: 200)
        } catch {
            await directory.finished(backend, keepAlive: keepAlive)
            let cancelled = error is CancellationError || (error as? LooplError)?.code == .cancelled || Task.isCancelled
            metrics.finished(backend, status: cancelled ? ServeMetrics.clientClosed : APIError.from(error).status)
            throw error
        }
    }

    /// ``run(_:consume:)`` for a turn given by its parts, as every dialect reads them.
    func run(messages: [Message], tools: [ToolSpec], options: GenerationOptions,
             consume: (ModelEvent) async throws -> Bool) async throws {
        try await run({ $0.generate(messages: messages, tools: tools, options: options) }, consume: consume)
    }

    /// The model's embeddings of `inputs` in a place of the backend's limit, counted as a request.
    func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings {
        do {
            let embeddings = try await limit.withPlace {
                try await directory.model(for: backend).embeddings(inputs, truncate: truncate)
            }
            await directory.finished(backend, keepAlive: keepAlive)
            metrics.finished(backend, status: 200)
            return embeddings
        } catch {
            await directory.finished(backend, keepAlive: keepAlive)
            metrics.finished(backend, status: APIError.from(error).status)
            throw error
        }
    }

    /// How many events past a satisfied answer are read for its final metrics before the
    /// generation is stopped.
    static let drainedEvents = 16

    private func attempts(on model: any Model, _ generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error>,
                          consume: (ModelEvent) async throws -> Bool) async throws {
        var retried = false
        while true {
            var began = false
            var satisfied = false
            var after = 0
            do {
                for try await event in generate(model) {
                    if case .metrics(let counts) = event {
                        if counts.finished { metrics.generated(backend, counts) }
                    } else {
                        began = true
                    }
                    // Once the answer is whole, only its final metrics (its usage) are still read,
                    // for a few events at most: a grammar ends the turn right after the call.
                    guard satisfied else {
                        satisfied = try await !consume(event)
                        continue
                    }
                    guard case .metrics(let counts) = event else {
                        after += 1
                        if after > Self.drainedEvents { return }
                        continue
                    }
                    _ = try await consume(event)
                    if counts.finished { return }
                }
                return
            } catch let error as LooplError where error.engineLoss != nil {
                let retry = !began && !retried
                metrics.engineLost(backend, retried: retry)
                guard retry else { throw error }
                retried = true
            }
        }
    }
}
