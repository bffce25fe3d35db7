import Loopl
import LooplHTTP

/// `POST /v1/chat/completions`: one assistant turn of the model the request names, whole or
/// streamed as server-sent events.
struct ChatEndpoint: Sendable {
    let directory: ModelDirectory
    /// How long a streamed answer waits for its first event before it sends its head and a
    /// keep-alive comment, and then the interval of those comments.
    let keepAlive: Duration
    /// What the server counts.
    let metrics: ServeMetrics

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let chat = try ChatCompletionRequest(body: request.body)
            let backend = try directory.names.backend(for: chat.model)
            let model = try await start(backend)
            let name = chat.model ?? backend
            if chat.stream {
                await stream(chat, model: model, name: name, responder)
            } else {
                responder.respond(json: try await complete(chat, model: model, name: name))
            }
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    /// The backend's model, as the server runs it; a start that fails is a 503 naming why.
    func start(_ backend: String) async throws(APIError) -> ServedModel {
        guard let limit = directory.limits[backend] else { throw .modelNotFound(backend, available: directory.names.ids) }
        do {
            return ServedModel(backend: backend, model: try await directory.model(for: backend), limit: limit, metrics: metrics)
        } catch {
            let reason = (error as? LooplError)?.message ?? "\(error)"
            metrics.finished(backend, status: 503)
            throw .unavailable("The model '\(backend)' could not start: \(reason)")
        }
    }

    private func complete(_ chat: ChatCompletionRequest, model: ServedModel, name: String) async throws -> JSONValue {
        var completion = ChatCompletion(model: name,
                                        parallelToolCalls: chat.parallelToolCalls)
        try await Self.run(chat, on: model) { event in
            completion.add(event)
            return !completion.isSatisfied
        }
        return completion.json
    }

    private func stream(_ chat: ChatCompletionRequest, model: ServedModel, name: String, _ responder: HTTPResponder) async {
        let gate = StreamGate(responder, keepAlive: keepAlive)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        var encoder = ChatChunkEncoder(model: name, includeUsage: chat.includeUsage,
                                       parallelToolCalls: chat.parallelToolCalls)
        var last: Metrics?
        do {
            try await Self.run(chat, on: model) { event in
                if case .metrics(let metrics) = event {
                    last = metrics
                    return true
                }
                try Self.send(encoder.chunks(for: event), through: gate)
                return !encoder.isSatisfied
            }
            try Self.send(encoder.finish(last), through: gate)
            gate.finish()
        } catch {
            gate.fail(APIError.from(error))
        }
    }

    private static func send(_ chunks: [JSONValue], through gate: StreamGate) throws {
        for chunk in chunks where !gate.send(SSE.data(chunk)) { throw CancellationError() }
    }

    /// Streams the turn into `consume` until it returns false or the turn ends. An engine lost
    /// before the first text, thinking or call is tried once more, as an agent retries a turn.
    static func run(_ chat: ChatCompletionRequest, on model: ServedModel,
                    consume: (ModelEvent) throws -> Bool) async throws {
        try await run(messages: chat.messages, tools: chat.tools, options: chat.options, on: model, consume: consume)
    }

    /// ``run(_:on:consume:)`` for a turn given by its parts, as every dialect reads them.
    static func run(messages: [Message], tools: [ToolSpec], options: GenerationOptions, on model: ServedModel,
                    consume: (ModelEvent) throws -> Bool) async throws {
        try await model.run({ $0.generate(messages: messages, tools: tools, options: options) }, consume: consume)
    }
}
