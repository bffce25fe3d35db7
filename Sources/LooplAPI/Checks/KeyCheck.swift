import LooplHTTP

/// Asks for the API key (``APIKey``), when the server has one, on every endpoint that needs it.
struct KeyCheck: RefusingStage {
    let key: APIKey?

    func refusal(_ request: HTTPRequest, to route: RouteTraits, port: Int) -> APIError? {
        guard let key, route.needsKey,
              !key.accepts(authorization: request.headers["authorization"], xAPIKey: request.headers["x-api-key"]) else { return nil }
        return .unauthorized
    }
}
