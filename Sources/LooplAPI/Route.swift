import LooplHTTP

/// One line of the route table: the methods it takes, its path, what the checks need to know of
/// it, a few words for help, and its handler.
struct Route: Sendable {
    typealias Handler = @Sendable (ServeEndpoints, Routed, HTTPResponder) async -> Void

    /// `GET`, `POST`, ...; the first is the one the docs name.
    let methods: [String]
    let pattern: PathPattern
    let traits: RouteTraits
    /// What it answers, for `loopl serve --help`; nil for a route help and the docs leave out
    /// (the page's own files).
    let summary: String?
    let handler: Handler

    /// A route for `methods` (space-separated: `"GET HEAD"`) at `path` (as ``PathPattern`` reads it).
    init(_ methods: String, _ path: String, _ traits: RouteTraits, _ summary: String?, handler: @escaping Handler) {
        self.methods = methods.split(separator: " ").map(String.init)
        pattern = PathPattern(path)
        self.traits = traits
        self.summary = summary
        self.handler = handler
    }
}

extension Route {
    /// A route with the default traits: OpenAI's errors, the key, JSON bodies.
    init(_ methods: String, _ path: String, _ summary: String?, handler: @escaping Handler) {
        self.init(methods, path, RouteTraits(), summary, handler: handler)
    }
}

/// A request as its route's handler sees it: the request and its path's parameters.
struct Routed: Sendable {
    let request: HTTPRequest
    let parameters: [String: String]

    /// The parameter `name` of the path (`{id}`), percent-decoded.
    subscript(_ name: String) -> String { parameters[name] ?? "" }
}
