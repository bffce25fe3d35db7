import Loopl
import LooplHTTP

/// `GET /loopl/v1/sessions` (the saved conversations, newest first), `GET /loopl/v1/sessions/{id}`
/// (one, with its messages) and `DELETE /loopl/v1/sessions/{id}`.
struct SessionsEndpoint: Sendable {
    let store: SessionStore

    func list(_ responder: HTTPResponder) {
        responder.respond(json: ["object": "list", "data": .array(store.list().map(\.json))])
    }

    func get(_ id: String, _ responder: HTTPResponder) {
        answer(id, responder) { () throws -> JSONValue in
            let messages = try store.messages(id)
            guard var json = store.summary(id)?.json.objectValue else { throw SessionStore.notFound(id) }
            json["messages"] = .array(messages.map(\.templateValue))
            return .object(json)
        }
    }

    func delete(_ id: String, _ responder: HTTPResponder) {
        answer(id, responder) { () throws -> JSONValue in
            try store.delete(id)
            return ["id": .string(id), "deleted": true]
        }
    }

    /// Answers with `body`'s JSON for a well-formed `id`, else a 400; an error thrown is the answer.
    private func answer(_ id: String, _ responder: HTTPResponder, _ body: () throws -> JSONValue) {
        guard SessionStore.isValidId(id) else {
            return responder.respond(.invalidRequest("'\(id.prefix(80))' is not a session id (1 to 64 letters, digits, - or _).",
                                                     param: "session"))
        }
        do { responder.respond(json: try body()) } catch { responder.respond(APIError.from(error)) }
    }
}
