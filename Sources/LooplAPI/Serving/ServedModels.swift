import Loopl
import LooplHTTP

/// The served models as every dialect reaches them: the backend a request names, started on its
/// first request and run under its ``ModelLimit``, counted in the ``ServeMetrics``, and a turn
/// streamed through a dialect's ``StreamEncoder``.
struct ServedModels: Sendable {
    let directory: ModelDirectory
    /// How long a streamed answer waits for its first event before it sends its head and a
    /// keep-alive, and then the interval of those.
    let keepAlive: Duration
    /// What the server counts.
    let metrics: ServeMetrics

    /// The model a request's `model` names (a backend, an alias, or the default when nil), started,
    /// to stay loaded for `keepAlive` after the request (nil: the backend's keep-alive).
    func start(named name: String?, keepAlive: KeepAlive? = nil) async throws(APIError) -> ServedModel {
        try await start(backend: directory.names.backend(for: name), as: name, keepAlive: keepAlive)
    }

    /// The backend's model, as the server runs it, its answers reporting `name` (else the
    /// backend's); a start that fails is a 503 naming why.
    func start(backend: String, as name: String? = nil, keepAlive: KeepAlive? = nil) async throws(APIError) -> ServedModel {
        guard let limit = directory.limits[backend] else { throw .modelNotFound(backend, available: directory.names.ids) }
        do {
            let model = try await directory.model(for: backend)
            return ServedModel(backend: backend, name: name ?? backend, model: model, directory: directory, limit: limit,
                               metrics: metrics, keepAlive: keepAlive)
        } catch {
            let reason = (error as? LooplError)?.message ?? "\(error)"
            metrics.finished(backend, status: 503)
            throw .unavailable("The model '\(backend)' could not start: \(reason)")
        }
    }

    /// Streams the turn that `generate` makes on `model` to `responder` through `encoder`, in its
    /// dialect's framing, with `headers` in the head; an error before the head keeps its status.
    func stream<Encoder: StreamEncoder>(_ encoder: Encoder, on model: ServedModel, headers: [(String, String)] = [],
                                        _ responder: HTTPResponder,
                                        generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error>) async {
        let gate = StreamGate(responder, keepAlive: keepAlive, framing: Encoder.framing, headers: headers)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        var encoder = encoder
        do {
            try await model.run(generate) { event in
                try gate.send(all: encoder.encode(event))
                return !encoder.isSatisfied
            }
            try gate.send(all: encoder.finish())
            gate.finish()
        } catch {
            gate.fail(APIError.from(error))
        }
    }
}
