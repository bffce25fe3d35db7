import Loopl
import LooplHTTP

/// `POST /v1/messages` and `POST /v1/messages/count_tokens`: Anthropic's Messages dialect over the
/// same backends and turn runner as chat completions, with errors in Anthropic's shape.
struct MessagesEndpoint: Sendable {
    let models: ServedModels

    /// Answers `/v1/messages`: one assistant turn, whole or as named server-sent events.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let messages = try MessagesRequest(body: request.body)
            let model = try await models.start(named: messages.model, keepAlive: messages.keepAlive)
            let headers = Self.warnings(messages)
            if messages.stream {
                let encoder = MessagesStreamEncoder(model: model.name, parallelToolCalls: messages.parallelToolCalls,
                                                    stops: messages.stopSequences)
                return await models.stream(encoder, on: model, headers: headers, responder) {
                    $0.generate(messages: messages.messages, tools: messages.tools, options: messages.options)
                }
            }
            var answer = MessagesAnswer(model: model.name, parallelToolCalls: messages.parallelToolCalls, stops: messages.stopSequences)
            try await model.run(messages: messages.messages, tools: messages.tools, options: messages.options) { event in
                answer.add(event)
                return !answer.isSatisfied
            }
            responder.respond(status: 200, headers: JSONHeaders.contentType + headers, body: Array(answer.json.jsonText().utf8))
        } catch {
            responder.respond(anthropic: APIError.from(error))
        }
    }

    /// Answers `/v1/messages/count_tokens` with `{input_tokens}`: the prompt's tokens after the
    /// template, as the backend counts them when it evaluates the prompt for a one-token turn,
    /// and `estimated: true` when the backend's counts are a heuristic.
    func countTokens(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            var messages = try MessagesRequest(body: request.body, countingTokens: true)
            let model = try await models.start(named: messages.model, keepAlive: messages.keepAlive)
            messages.options.maxTokens = 1
            var last: Metrics?
            try await model.run(messages: messages.messages, tools: messages.tools, options: messages.options) { event in
                if case .metrics(let metrics) = event { last = metrics }
                return last?.finished != true
            }
            guard let last, last.promptTokens > 0 else {
                throw APIError.internalError("The backend did not report the prompt's size, so its tokens cannot be counted.")
            }
            var answer: JSONObject = ["input_tokens": .integer(last.promptTokens)]
            if last.estimated { answer["estimated"] = true }
            responder.respond(status: 200, headers: JSONHeaders.contentType + Self.warnings(messages),
                              body: Array(JSONValue.object(answer).jsonText().utf8))
        } catch {
            responder.respond(anthropic: APIError.from(error))
        }
    }

    /// `Loopl-Warning` when the request offered server tools, which Loopl leaves out.
    static func warnings(_ messages: MessagesRequest) -> [(String, String)] {
        guard !messages.ignoredTools.isEmpty else { return [] }
        return [("Loopl-Warning", "Server tools are not run here and were left out: \(messages.ignoredTools.joined(separator: ", ")).")]
    }
}

extension MessagesStreamEncoder: StreamEncoder {
    static var framing: StreamFraming { AnthropicSSE.framing }

    mutating func encode(_ event: ModelEvent) -> [[UInt8]] { events(for: event).map(\.bytes) }

    mutating func finish() -> [[UInt8]] { finish(nil).map(\.bytes) }
}

extension HTTPResponder {
    /// Answers with `error`'s status and headers and its body in Anthropic's shape.
    func respond(anthropic error: APIError) {
        respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.anthropicBody)
    }
}
