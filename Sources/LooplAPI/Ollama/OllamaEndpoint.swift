import Loopl
import LooplHTTP

/// `POST /api/chat` and `POST /api/generate`: Ollama's dialect over the same backends and turn
/// runner as chat completions, streamed as newline-delimited JSON unless `"stream": false`, with
/// errors in Ollama's shape.
struct OllamaEndpoint: Sendable {
    /// The chat endpoint, whose model directory, keep-alive and start this one shares.
    let chat: ChatEndpoint

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

    /// Starts the backend the request names, then answers whole or streamed; only started for `loadOnly`.
    private func answer(_ settings: OllamaSettings, shape: OllamaReply.Shape, loadOnly: Bool, _ responder: HTTPResponder,
                        generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error>) async throws {
        let started = ContinuousClock.now
        let model = try await chat.start(try OllamaSettings.backend(for: settings.model, in: chat.directory.names))
        var reply = OllamaReply(shape: shape, model: settings.model, started: started, load: .now - started)
        if loadOnly { return responder.respond(json: reply.loaded()) }
        guard settings.stream else {
            try await model.run(generate) { event in
                _ = reply.chunk(for: event)
                return true
            }
            return responder.respond(json: reply.final(streamed: false))
        }
        let gate = StreamGate(responder, keepAlive: chat.keepAlive, framing: OllamaStream.framing)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        do {
            try await model.run(generate) { event in
                if let chunk = reply.chunk(for: event), !gate.send(OllamaStream.line(chunk)) { throw CancellationError() }
                return true
            }
            guard gate.send(OllamaStream.line(reply.final(streamed: true))) else { throw CancellationError() }
            gate.finish()
        } catch {
            gate.fail(APIError.from(error))
        }
    }
}
