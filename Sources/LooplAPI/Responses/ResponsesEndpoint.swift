import Loopl
import LooplHTTP

/// OpenAI's Responses API: `POST /v1/responses` runs one assistant turn, whole or streamed as
/// named server-sent events, and keeps it (unless `store: false`) for `GET` and `DELETE
/// /v1/responses/{id}` and for `previous_response_id`.
struct ResponsesEndpoint: Sendable {
    let models: ServedModels
    /// The kept responses.
    let store: ResponsesStore

    /// `GET /responses/{id}`: a kept response.
    func get(_ id: String, _ responder: HTTPResponder) async {
        guard let entry = await entry(id) else { return responder.respond(.responseNotFound(id)) }
        responder.respond(json: entry.response)
    }

    /// `DELETE /responses/{id}`: forgets a kept response.
    func delete(_ id: String, _ responder: HTTPResponder) async {
        guard await entry(id) != nil else { return responder.respond(.responseNotFound(id)) }
        await store.remove(id)
        responder.respond(json: ResponsesAnswer.deleted(id))
    }

    private func entry(_ id: String) async -> ResponsesStore.Entry? {
        guard ResponsesStore.isValidId(id) else { return nil }
        return await store.get(id)
    }

    func create(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try ResponsesRequest(body: request.body)
            let earlier = try await previous(body)
            let (conversation, input) = try body.conversation(after: earlier)
            let model = try await models.start(named: body.model, keepAlive: body.keepAlive)
            let turn = Turn(request: body, conversation: conversation, kept: earlier + input, model: model,
                            answer: ResponsesAnswer(model: model.name, echo: body.echo))
            let headers = body.ignoredToolTypes.isEmpty ? [] : [("Loopl-Warning", "ignored tool types: " + body.ignoredToolTypes.joined(separator: ", "))]
            if body.stream {
                await stream(turn, headers: headers, responder)
            } else {
                let response = try await complete(turn)
                responder.respond(status: 200, headers: JSONHeaders.contentType + headers, body: Array(response.jsonText().utf8))
            }
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    /// The stored conversation that `previous_response_id` continues; none without one.
    private func previous(_ body: ResponsesRequest) async throws(APIError) -> [Message] {
        guard let id = body.previousResponseId else { return [] }
        guard let entry = await entry(id) else { throw .previousResponseNotFound(id) }
        return entry.conversation
    }

    /// One turn to run: the request, what is sent, what a continuation keeps, and the answer's frame.
    private struct Turn {
        let request: ResponsesRequest
        let conversation: [Message]
        let kept: [Message]
        let model: ServedModel
        let answer: ResponsesAnswer

        /// Runs the turn into `output`, calling `each` with the stream events of every model event.
        func run(_ output: inout ResponsesOutput, each: ([JSONObject]) throws -> Void) async throws {
            try await model.run(messages: conversation, tools: request.tools, options: request.options) { event in
                try each(output.add(event))
                return !output.isSatisfied
            }
        }
    }

    private func complete(_ turn: Turn) async throws -> JSONValue {
        var output = ResponsesOutput(parallelToolCalls: turn.request.parallelToolCalls)
        try await turn.run(&output) { _ in }
        _ = output.finish()
        return try await keep(turn, output)
    }

    /// The finished response object, kept in the store unless the request said `store: false`.
    private func keep(_ turn: Turn, _ output: ResponsesOutput) async throws -> JSONValue {
        let response = turn.answer.finished(output)
        if turn.request.store {
            try await store.put(.init(id: turn.answer.id, response: response, conversation: turn.kept + [output.message]))
        }
        return response
    }

    private func stream(_ turn: Turn, headers: [(String, String)], _ responder: HTTPResponder) async {
        let gate = StreamGate(responder, keepAlive: models.keepAlive, framing: .responses, headers: headers)
        let timer = gate.armKeepAlive()
        defer { timer.cancel() }
        var frames = ResponsesStreamEncoder()
        var output = ResponsesOutput(parallelToolCalls: turn.request.parallelToolCalls)
        let opening = [ResponsesStreamEncoder.lifecycle("response.created", turn.answer.inProgress),
                       ResponsesStreamEncoder.lifecycle("response.in_progress", turn.answer.inProgress)]
        /// Sends `events`, after the opening ones when they are the first; throws once the client is gone.
        func send(_ events: [JSONObject]) throws {
            guard !events.isEmpty else { return }
            let all = frames.sequenceNumber == 0 ? opening + events : events
            for event in all where !gate.send(frames.frame(event)) { throw CancellationError() }
        }
        do {
            try await turn.run(&output) { events in try send(events) }
            var last = output.finish()
            let response = try await keep(turn, output)
            let done = response["status"]?.stringValue == "incomplete" ? "response.incomplete" : "response.completed"
            last.append(ResponsesStreamEncoder.lifecycle(done, response))
            try send(last)
            gate.finish()
        } catch {
            let failure = APIError.from(error)
            let prefix: [UInt8] = frames.sequenceNumber == 0 ? opening.flatMap { frames.frame($0) } : []
            let failed = frames.frame(ResponsesStreamEncoder.lifecycle("response.failed", turn.answer.failed(failure, output)))
            gate.fail(failure, event: prefix + failed)
        }
    }
}

extension APIError {
    /// 404: no response `id` is stored (never stored, deleted, or evicted).
    static func responseNotFound(_ id: String) -> APIError {
        APIError(status: 404, type: "invalid_request_error", code: "response_not_found",
                 message: "Response with id '\(id)' not found: it was never stored, was deleted, or was evicted as the store filled.")
    }

    /// 404: `previous_response_id` names no stored response.
    static func previousResponseNotFound(_ id: String) -> APIError {
        APIError(status: 404, type: "invalid_request_error", code: "previous_response_not_found",
                 message: "Previous response with id '\(id)' not found: send the whole conversation as `input` instead.",
                 param: "previous_response_id")
    }
}
