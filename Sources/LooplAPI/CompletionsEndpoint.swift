import Loopl
import LooplHTTP

/// `POST /v1/completions`: the model's continuation of a raw prompt, whole or streamed as
/// server-sent events. A backend that takes only messages answers 400.
struct CompletionsEndpoint: Sendable {
    let chat: ChatEndpoint

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try CompletionRequest(body: request.body)
            let backend = try chat.directory.names.backend(for: body.model)
            let model = try await chat.start(backend)
            var answer = TextCompletion(model: body.model ?? backend)
            if body.stream {
                await stream(body, model: model, answer: &answer, responder)
            } else {
                try await model.run({ $0.complete(prompt: body.prompt, options: body.options) }) { event in
                    _ = answer.add(event)
                    return true
                }
                responder.respond(json: answer.json)
            }
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    private func stream(_ body: CompletionRequest, model: ServedModel, answer: inout TextCompletion, _ responder: HTTPResponder) async {
        let gate = StreamGate(responder, keepAlive: chat.keepAlive)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        do {
            try await model.run({ $0.complete(prompt: body.prompt, options: body.options) }) { event in
                if let chunk = answer.add(event, includeUsage: body.includeUsage), !gate.send(SSE.data(chunk)) { throw CancellationError() }
                return true
            }
            for chunk in answer.finish(includeUsage: body.includeUsage) where !gate.send(SSE.data(chunk)) { throw CancellationError() }
            gate.finish()
        } catch {
            gate.fail(APIError.from(error))
        }
    }
}
