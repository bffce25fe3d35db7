import Loopl
import LooplHTTP

/// `POST /api/chat` and `POST /api/generate`: Ollama's dialect over the same backends and turn
/// runner as chat completions, streamed as newline-delimited JSON unless `"stream": false`, with
/// errors in Ollama's shape; and `GET`/`HEAD /` for a client checking that Ollama runs.
struct OllamaEndpoint: Sendable {
    let models: ServedModels

    /// One assistant turn for the request's messages, tools and options.
    func chat(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try OllamaChatRequest(body: request.body)
            try await answer(body.settings, shape: .chat, loadOnly: body.messages.isEmpty, responder) {
                $0.generate(messages: body.messages, tools: body.tools, options: body.settings.options)
            }
        } catch {
            responder.respond(ollama: APIError.from(error))
        }
    }

    /// The model's answer to a prompt: through its chat template, or as given with `raw`.
    func generate(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try OllamaGenerateRequest(body: request.body)
            try await answer(body.settings, shape: .generate, loadOnly: body.prompt.isEmpty, responder) { model in
                body.raw ? model.complete(prompt: body.prompt, options: body.settings.options)
                    : model.generate(messages: body.messages, tools: [], options: body.settings.options)
            }
        } catch {
            responder.respond(ollama: APIError.from(error))
        }
    }

    /// Starts the backend the request names, then answers whole or streamed; for `loadOnly`, only
    /// started, or unloaded when `keep_alive` is 0, as Ollama does.
    private func answer(_ settings: OllamaSettings, shape: OllamaAnswer.Shape, loadOnly: Bool, _ responder: HTTPResponder,
                        generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error>) async throws {
        let started = ContinuousClock.now
        let backend = try OllamaSettings.backend(for: settings.model, in: models.directory.names)
        if loadOnly, settings.keepAlive?.seconds == 0 {
            try await models.directory.unload(backend)
            return responder.respond(json: OllamaAnswer(shape: shape, model: settings.model, started: started, load: .zero).loaded(reason: "unload"))
        }
        let model = try await models.start(backend: backend, keepAlive: settings.keepAlive)
        var answer = OllamaAnswer(shape: shape, model: settings.model, started: started, load: .now - started)
        if loadOnly {
            await models.directory.finished(backend, keepAlive: settings.keepAlive)
            return responder.respond(json: answer.loaded())
        }
        guard settings.stream else {
            try await model.run(generate) { event in
                _ = answer.chunk(for: event)
                return true
            }
            return responder.respond(json: answer.final(streamed: false))
        }
        await models.stream(OllamaStreamEncoder(answer: answer), on: model, responder, generate: generate)
    }

    /// Whether `request` for `/` is a client checking for Ollama rather than a browser.
    static func isProbe(_ request: HTTPRequest) -> Bool {
        !(request.headers["Accept"]?.lowercased().contains("text/html") ?? false)
    }

    /// `Ollama is running`, as `text/plain`.
    static func probe(_ responder: HTTPResponder) {
        responder.respond(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("Ollama is running".utf8))
    }

    /// Why an `/api/` path that no route takes is not answered: an endpoint not served (501), or none at all (404).
    static func unserved(_ path: String) -> APIError {
        if ["/api/pull", "/api/push", "/api/create", "/api/copy", "/api/delete"].contains(path) || path.hasPrefix("/api/blobs/") {
            return APIError(status: 501, type: "server_error", code: "not_implemented",
                            message: "\(path) is not served: models are the config's backends (loopl backends lists them), not pulled from a registry; add or remove a backend in the config and restart loopl serve.")
        }
        return .ollamaNotFound(path)
    }
}
