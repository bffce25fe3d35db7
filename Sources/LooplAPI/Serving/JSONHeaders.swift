import Loopl
import LooplHTTP

/// JSON bodies on the HTTP responder.
enum JSONHeaders {
    static let contentType = [("Content-Type", "application/json")]
}

extension HTTPResponder {
    /// Answers with `value` as a JSON body.
    func respond(json value: JSONValue, status: Int = 200) {
        respond(status: status, headers: JSONHeaders.contentType, body: Array(value.jsonText().utf8))
    }

    /// Answers with `error`'s status, headers and body.
    func respond(_ error: APIError) {
        respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.body)
    }
}
