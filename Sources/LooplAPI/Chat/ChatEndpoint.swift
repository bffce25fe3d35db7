import Loopl
import LooplHTTP

/// `POST /v1/chat/completions`: one assistant turn of the model the request names, whole or
/// streamed as server-sent events.
struct ChatEndpoint: Sendable {
    let models: ServedModels

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let chat = try ChatRequest(body: request.body)
            let model = try await models.start(named: chat.model, keepAlive: chat.keepAlive)
            if chat.stream {
                let encoder = ChatStreamEncoder(model: model.name, includeUsage: chat.includeUsage, parallelToolCalls: chat.parallelToolCalls)
                return await models.stream(encoder, on: model, responder) {
                    $0.generate(messages: chat.messages, tools: chat.tools, options: chat.options)
                }
            }
            var answer = ChatAnswer(model: model.name, parallelToolCalls: chat.parallelToolCalls)
            try await model.run(messages: chat.messages, tools: chat.tools, options: chat.options) { event in
                answer.add(event)
                return !answer.isSatisfied
            }
            responder.respond(json: answer.json)
        } catch {
            responder.respond(APIError.from(error))
        }
    }
}

extension ChatStreamEncoder: StreamEncoder {
    static var framing: StreamFraming { .openAI }

    /// Each chunk as `data: <chunk>`.
    mutating func encode(_ event: ModelEvent) -> [[UInt8]] { chunks(for: event).map(SSE.data) }

    /// The last chunks; the framing's `data: [DONE]` follows them.
    mutating func finish() -> [[UInt8]] { finish(nil).map(SSE.data) }
}
