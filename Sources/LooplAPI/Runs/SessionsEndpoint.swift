import Loopl
import LooplHTTP

/// `GET /loopl/v1/sessions` (the saved conversations, newest first), `GET /loopl/v1/sessions/{id}`
/// (one, with its messages) and `DELETE /loopl/v1/sessions/{id}`.
struct SessionsEndpoint: Sendable {
    let store: SessionStore

    func list(_ request: HTTPRequest, _ responder: HTTPResponder) {
        guard request.method == "GET" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["GET"])) }
        responder.respond(json: ["object": "list", "data": .array(store.list().map(\.json))])
    }

    func handle(_ id: String, _ request: HTTPRequest, _ responder: HTTPResponder) {
        guard SessionStore.isValidId(id) else {
            return responder.respond(.invalidRequest("'\(id.prefix(80))' is not a session id (1 to 64 letters, digits, - or _).",
                                                     param: "session"))
        }
        do {
            switch request.method {
            case "GET":
                let messages = try store.messages(id)
                guard var json = store.summary(id)?.json.objectValue else { throw SessionStore.notFound(id) }
                json["messages"] = .array(messages.map(\.templateValue))
                responder.respond(json: .object(json))
            case "DELETE":
                try store.delete(id)
                responder.respond(json: ["id": .string(id), "deleted": true])
            default:
                responder.respond(.methodNotAllowed(request.method, allowed: ["GET", "DELETE"]))
            }
        } catch {
            responder.respond(APIError.from(error))
        }
    }
}
