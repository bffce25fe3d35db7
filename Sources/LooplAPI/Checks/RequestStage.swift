import LooplHTTP

/// One check a request passes on its way to its endpoint. ``RequestChecks`` runs them in their order.
protocol RequestStage: Sendable {
    /// Lets `request` on (true), or answers it and stops it there (false).
    func admits(_ request: HTTPRequest, to route: RouteTraits, _ responder: HTTPResponder) -> Bool
}

/// A stage that stops a request with an error or lets it on.
protocol RefusingStage: RequestStage {
    /// Why `request` to a server on `port` goes no further; nil lets it on.
    func refusal(_ request: HTTPRequest, to route: RouteTraits, port: Int) -> APIError?
}

extension RefusingStage {
    func admits(_ request: HTTPRequest, to route: RouteTraits, _ responder: HTTPResponder) -> Bool {
        guard let error = refusal(request, to: route, port: responder.port) else { return true }
        responder.respond(error, for: route)
        return false
    }
}

/// The stages every request passes, in order, before its endpoint answers it.
struct RequestChecks: Sendable {
    let stages: [any RequestStage]

    /// True when every stage let `request` on; false once one answered it.
    func admit(_ request: HTTPRequest, to route: RouteTraits, _ responder: HTTPResponder) -> Bool {
        stages.allSatisfy { $0.admits(request, to: route, responder) }
    }
}
