import Loopl
import LooplHTTP

/// `POST /v1/completions`: the model's continuation of a raw prompt, whole or streamed as
/// server-sent events. A backend that takes only messages answers 400.
struct CompletionsEndpoint: Sendable {
    let models: ServedModels

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try CompletionRequest(body: request.body)
            let model = try await models.start(named: body.model, keepAlive: body.keepAlive)
            var answer = CompletionAnswer(model: model.name)
            let generate: (any Model) -> AsyncThrowingStream<ModelEvent, any Error> = {
                $0.complete(prompt: body.prompt, options: body.options)
            }
            if body.stream {
                return await models.stream(CompletionStreamEncoder(answer: answer, includeUsage: body.includeUsage),
                                           on: model, responder, generate: generate)
            }
            try await model.run(generate) { event in
                _ = answer.add(event)
                return true
            }
            responder.respond(json: answer.json)
        } catch {
            responder.respond(APIError.from(error))
        }
    }
}
