import LooplHTTP

/// Which browser origins may call the API (`serve.corsOrigins`), and the headers they get: a
/// preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered for them only, and an
/// answer to one of them names it. `*` allows every origin; it is sent as `*` only when the server
/// has no API key, else the request's origin is named instead. Origins that are not listed never
/// get this far (``BrowserCheck``).
struct CORSPolicy: RequestStage {
    let origins: [String]
    /// Whether the server asks for a key: then no wildcard is sent.
    let keyed: Bool

    /// The methods a preflight may ask for.
    static let methods = "GET, POST, DELETE, OPTIONS"
    /// The headers allowed when a preflight does not list those it wants (an SDK's own are allowed when listed).
    static let headers = "Authorization, Content-Type, X-API-Key, Anthropic-Version"

    /// True for `*` and for `scheme://host[:port]` without a path.
    static func isOrigin(_ text: String) -> Bool {
        if text == "*" { return true }
        guard let range = text.range(of: "://"), !text[..<range.lowerBound].isEmpty else { return false }
        let rest = text[range.upperBound...]
        return !rest.isEmpty && !rest.contains("/") && !rest.contains(where: \.isWhitespace)
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, or nil when it is not allowed.
    func allowed(_ origin: String?) -> String? {
        guard let origin, !origin.isEmpty else { return nil }
        if origins.contains(origin) { return origin }
        guard origins.contains("*") else { return nil }
        return keyed ? origin : "*"
    }

    /// The headers an answer to `request` carries: none for an origin that is not allowed.
    func headers(for request: HTTPRequest) -> [(String, String)] {
        guard let value = allowed(request.headers["origin"]) else { return [] }
        return [("Access-Control-Allow-Origin", value), ("Vary", "Origin")]
    }

    /// Adds the headers for the request's origin to its answer; answers a preflight and stops there.
    func admits(_ request: HTTPRequest, to route: RouteTraits, _ responder: HTTPResponder) -> Bool {
        responder.include(headers: headers(for: request))
        return !answerPreflight(request, responder)
    }

    /// Whether `request` is a CORS preflight.
    static func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == "OPTIONS" && request.headers["origin"] != nil && request.headers["access-control-request-method"] != nil
    }

    /// Answers a preflight from an allowed origin (204 with what it may send) and returns true;
    /// false for any other origin, whose preflight gets no CORS headers.
    func answerPreflight(_ request: HTTPRequest, _ responder: HTTPResponder) -> Bool {
        guard Self.isPreflight(request), allowed(request.headers["origin"]) != nil else { return false }
        responder.respond(status: 204, headers: headers(for: request) + [
            ("Access-Control-Allow-Methods", Self.methods),
            ("Access-Control-Allow-Headers", request.headers["access-control-request-headers"] ?? Self.headers),
            ("Access-Control-Max-Age", "600"),
        ])
        return true
    }
}
