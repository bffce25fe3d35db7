import Loopl
import LooplHTTP

/// `POST /v1/messages` and `POST /v1/messages/count_tokens`: Anthropic's Messages dialect over the
/// same backends and turn runner as chat completions, with errors in Anthropic's shape.
struct MessagesEndpoint: Sendable {
    /// The chat endpoint, whose model directory, keep-alive and start this one shares.
    let chat: ChatEndpoint

    /// Answers `/v1/messages`: one assistant turn, whole or as named server-sent events.
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let messages = try MessagesRequest(body: request.body)
            let backend = try chat.directory.names.backend(for: messages.model)
            let model = try await chat.start(backend)
            let name = messages.model ?? backend
            let headers = Self.warnings(messages)
            if messages.stream {
                await stream(messages, model: model, name: name, headers: headers, responder)
            } else {
                let json = try await complete(messages, model: model, name: name)
                responder.respond(status: 200, headers: JSONHeaders.contentType + headers, body: Array(json.jsonText().utf8))
            }
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
            let model = try await chat.start(try chat.directory.names.backend(for: messages.model))
            messages.options.maxTokens = 1
            var last: Metrics?
            try await ChatEndpoint.run(messages: messages.messages, tools: messages.tools, options: messages.options,
                                       on: model) { event in
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

    private func complete(_ messages: MessagesRequest, model: ServedModel, name: String) async throws -> JSONValue {
        var answer = MessagesAnswer(model: name, parallelToolCalls: messages.parallelToolCalls, stops: messages.stopSequences)
        try await ChatEndpoint.run(messages: messages.messages, tools: messages.tools, options: messages.options, on: model) { event in
            answer.add(event)
            return !answer.isSatisfied
        }
        return answer.json
    }

    private func stream(_ messages: MessagesRequest, model: ServedModel, name: String, headers: [(String, String)],
                        _ responder: HTTPResponder) async {
        let gate = StreamGate(responder, keepAlive: chat.keepAlive, framing: AnthropicSSE.framing, headers: headers)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        var encoder = MessagesStreamEncoder(model: name, parallelToolCalls: messages.parallelToolCalls,
                                            stops: messages.stopSequences)
        do {
            try await ChatEndpoint.run(messages: messages.messages, tools: messages.tools, options: messages.options,
                                       on: model) { event in
                try Self.send(encoder.events(for: event), through: gate)
                return !encoder.isSatisfied
            }
            try Self.send(encoder.finish(nil), through: gate)
            gate.finish()
        } catch {
            gate.fail(APIError.from(error))
        }
    }

    private static func send(_ events: [MessagesStreamEncoder.Event], through gate: StreamGate) throws {
        for event in events where !gate.send(event.bytes) { throw CancellationError() }
    }

    /// `Loopl-Warning` when the request offered server tools, which Loopl leaves out.
    static func warnings(_ messages: MessagesRequest) -> [(String, String)] {
        guard !messages.ignoredTools.isEmpty else { return [] }
        return [("Loopl-Warning", "Server tools are not run here and were left out: \(messages.ignoredTools.joined(separator: ", ")).")]
    }
}

extension HTTPResponder {
    /// Answers with `error`'s status and headers and its body in Anthropic's shape.
    func respond(anthropic error: APIError) {
        respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.anthropicBody)
    }
}
