import LooplHTTP

/// What the checks before an endpoint need to know of it.
struct RouteTraits: Sendable {
    /// The shape of an endpoint's error answers.
    enum Errors: Sendable { case openAI, anthropic, ollama }

    /// How an endpoint reads a body.
    enum Bodies: Sendable {
        /// Only a body sent as `Content-Type: application/json`; any other is refused with 415.
        case json
        /// Also one sent without a type or as a form (`curl -d`), read as JSON: for APIs whose own
        /// documentation posts that way (Ollama's `/api/...`).
        case jsonOrForm
    }

    var errors = Errors.openAI
    /// Whether the endpoint asks for the API key (the page's files and `/health` do not).
    var needsKey = true
    var bodies = Bodies.json
}

extension HTTPResponder {
    /// Answers with `error` in the shape of `route`'s errors.
    func respond(_ error: APIError, for route: RouteTraits) {
        switch route.errors {
        case .openAI: respond(error)
        case .anthropic: respond(anthropic: error)
        case .ollama: respond(ollama: error)
        }
    }
}
