import LooplHTTP

/// Refuses a body that is not declared JSON (`Content-Type: application/json`, parameters such as
/// `charset` allowed) with 415, so that what a page can send without asking the browser first
/// (`text/plain`, a form) starts nothing. An endpoint that reads forms as JSON
/// (``RouteTraits/Bodies/jsonOrForm``) also takes a body without a type or sent as a form.
struct JSONBodyCheck: RefusingStage {
    func refusal(_ request: HTTPRequest, to route: RouteTraits, port: Int) -> APIError? {
        guard !request.body.isEmpty else { return nil }
        let types = request.headers.values("Content-Type")
        guard types.count <= 1 else { return .notJSON(types.joined(separator: ", ")) }
        guard let type = types.first else { return route.bodies == .jsonOrForm ? nil : .notJSON(nil) }
        let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces.lowercased() } ?? ""
        if media == "application/json" { return nil }
        return route.bodies == .jsonOrForm && media == "application/x-www-form-urlencoded" ? nil : .notJSON(type)
    }
}

extension APIError {
    /// 415: the body is not declared JSON.
    static func notJSON(_ type: String?) -> APIError {
        let sent = type.map { "is sent as '\($0)'" } ?? "has no Content-Type"
        return APIError(status: 415, type: "invalid_request_error", code: "unsupported_media_type",
                        message: "The request body \(sent); send it as JSON with the header 'Content-Type: application/json'.")
    }
}
