import Foundation
import LooplHTTP

/// The routes a server answers, looked up by method and path: the one place that makes a 404,
/// and a 405 with the `Allow` header of every method the path takes.
struct RouteTable: Sendable {
    /// What answers a request: its route, or the error that refuses it, and the traits the checks use.
    struct Resolution {
        enum Outcome {
            case route(Route, Routed)
            case refusal(APIError)
        }

        let traits: RouteTraits
        let outcome: Outcome
    }

    let routes: [Route]

    /// The route of `request`, a 405 when its path is a route's but not its method, else a 404 in
    /// the error shape of the routes that share its first segment (`/api/...`: Ollama's).
    func resolve(_ request: HTTPRequest) -> Resolution {
        let matching = routes.compactMap { route in route.pattern.match(request.path).map { (route, $0) } }
        if let (route, parameters) = matching.first(where: { $0.0.methods.contains(request.method) }) {
            return Resolution(traits: route.traits, outcome: .route(route, Routed(request: request, parameters: parameters)))
        }
        if let (route, _) = matching.first {
            var allowed: [String] = []
            for method in matching.flatMap(\.0.methods) where !allowed.contains(method) { allowed.append(method) }
            return Resolution(traits: route.traits, outcome: .refusal(.methodNotAllowed(request.method, allowed: allowed)))
        }
        let family = PathPattern.family(of: request.path)
        var traits = routes.first { family != nil && $0.pattern.family == family }?.traits ?? RouteTraits()
        traits.needsKey = true
        return Resolution(traits: traits, outcome: .refusal(traits.errors == .ollama ? OllamaEndpoint.unserved(request.path)
                                                                                       : .notFound(request.path)))
    }

    /// Passes `request` through `checks` in their order, then to its route's handler, or answers
    /// its 404 or 405.
    func handle(_ request: HTTPRequest, checks: RequestChecks, endpoints: ServeEndpoints, _ responder: HTTPResponder) async {
        let resolution = resolve(request)
        guard checks.admit(request, to: resolution.traits, responder) else { return }
        switch resolution.outcome {
        case .route(let route, let routed): await route.handler(endpoints, routed, responder)
        case .refusal(let error): responder.respond(error, for: resolution.traits)
        }
    }

    /// The listed routes, one a line: methods, path and summary, for `loopl serve --help`.
    var help: String {
        let listed = routes.compactMap { route in route.summary.map { ("\(route.methods.joined(separator: ", ")) \(route.pattern)", $0) } }
        let width = listed.map(\.0.count).max() ?? 0
        return listed.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }
}
