import Foundation
import Loopl
import LooplHTTP
import LooplWeb

/// `loopl serve`: the OpenAI-compatible API over the configured backends, on Loopl's HTTP server.
package final class APIServer: Sendable {
    private let directory: ModelDirectory
    private let key: APIKey?
    private let settings: ServeSettings
    private let chat: ChatEndpoint
    private let http: HTTPServer

    /// Binds `host:port` (0 picks a free port), calls `listening` with the port, then serves the
    /// backends in `directory`.
    package init(directory: ModelDirectory, host: String, port: Int, key: APIKey?, settings: ServeSettings,
                 toolkit: AgentToolkit = .none, listening: (Int) -> Void = { _ in }) throws {
        self.directory = directory
        self.key = key
        self.settings = settings
        chat = ChatEndpoint(directory: directory, keepAlive: settings.keepAliveInterval, metrics: ServeMetrics())
        let responses = ResponsesEndpoint(chat: chat, store: try ResponsesStore(directory: settings.responsesDir))
        var limits = HTTPLimits()
        limits.maxBodyBytes = settings.maxRequestBytes
        let loopl = LooplRoutes(chat: chat, toolkit: toolkit, store: SessionStore(directory: settings.sessionsDir),
                                defaultModel: directory.names.defaultBackend, approval: settings.approval,
                                approvalTimeout: settings.approvalTimeout)
        let hosts = HostCheck(listening: host, allowed: settings.allowedHosts)
        // The order every request passes them in.
        let checks = RequestChecks(stages: [
            hosts,
            BrowserCheck(hosts: hosts, origins: settings.corsOrigins),
            CORSPolicy(origins: settings.corsOrigins, keyed: key != nil),
            KeyCheck(key: key),
            JSONBodyCheck(),
        ])
        let ollama = OllamaRoutes(endpoint: OllamaEndpoint(chat: chat), catalog: OllamaCatalog(directory: directory))
        let routes = Routes(directory: directory, chat: chat, responses: responses, messages: MessagesEndpoint(chat: chat),
                            checks: checks, metricsPublic: settings.metricsPublic, loopl: loopl, ollama: ollama)
        http = try HTTPServer.listen(host: host, port: port, limits: limits, errorBody: Routes.errorBody, headers: WebPage.headers,
                                     listening: listening) { request, responder in
            await routes.handle(request, responder)
        }
    }

    /// The port it listens on.
    package var port: Int { http.port }

    /// Stops taking requests, lets those in flight finish within the grace period, then closes
    /// every backend.
    package func shutdown() async {
        await http.shutdown(grace: settings.shutdownGrace)
        await directory.closeAll()
    }
}

/// Which endpoint answers a request, after the checks.
private struct Routes: Sendable {
    let directory: ModelDirectory
    let chat: ChatEndpoint
    let responses: ResponsesEndpoint
    let messages: MessagesEndpoint
    /// What every request passes before its endpoint.
    let checks: RequestChecks
    /// Whether `/metrics` answers without the key.
    let metricsPublic: Bool
    let loopl: LooplRoutes
    /// Ollama's `/api/...` and `/`.
    let ollama: OllamaRoutes
    /// When the server started: the `created` of every model it lists.
    let started = ChatAnswer.now()

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        let path = request.path.hasPrefix("/v1/") ? String(request.path.dropFirst(3)) : request.path
        let route = traits(path, request)
        guard checks.admit(request, to: route, responder) else { return }
        if path == "/health" {
            return get(request, responder) { ["status": "ok"] }
        }
        if path == "/metrics", metricsPublic { return metrics(request, responder) }
        if OllamaRoutes.isProbe(request) { return OllamaRoutes.probe(request, responder) }
        if let file = WebPage.file(at: request.path) { return get(request, responder, file) }
        if route.errors == .anthropic { return await routeMessages(path, request, responder) }
        if route.errors == .ollama { return await ollama.handle(path, request, responder) }
        if path.hasPrefix("/loopl/v1/") { return await loopl.handle(String(path.dropFirst("/loopl/v1".count)), request, responder) }
        switch path {
        case "/models":
            get(request, responder) { ModelObject.list(directory.names.ids.map { ModelObject(id: $0, created: started) }) }
        case let path where path.hasPrefix("/models/"):
            let id = String(path.dropFirst("/models/".count)).removingPercentEncoding ?? ""
            get(request, responder) {
                guard directory.names.ids.contains(id) else { throw APIError.modelNotFound(id, available: directory.names.ids) }
                return ModelObject(id: id, created: started).json
            }
        case "/chat/completions":
            guard request.method == "POST" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["POST"])) }
            await chat.handle(request, responder)
        case "/completions":
            guard request.method == "POST" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["POST"])) }
            await CompletionsEndpoint(chat: chat).handle(request, responder)
        case "/metrics":
            metrics(request, responder)
        case "/responses":
            await responses.handle(request, id: nil, responder)
        case let path where path.hasPrefix("/responses/"):
            await responses.handle(request, id: String(path.dropFirst("/responses/".count)).removingPercentEncoding ?? "", responder)
        default:
            responder.respond(.notFound(request.path))
        }
    }

    /// What the checks need to know of the endpoint at `path` (without `/v1`).
    private func traits(_ path: String, _ request: HTTPRequest) -> RouteTraits {
        var route = RouteTraits()
        if path == "/messages" || path.hasPrefix("/messages/") { route.errors = .anthropic }
        if OllamaRoutes.owns(request.path) { (route.errors, route.bodies) = (.ollama, .jsonOrForm) }
        route.needsKey = !(path == "/health" || (path == "/metrics" && metricsPublic) || WebPage.file(at: request.path) != nil
                           || OllamaRoutes.isProbe(request))
        return route
    }

    /// Anthropic's Messages endpoints, answering errors in its shape.
    private func routeMessages(_ path: String, _ request: HTTPRequest, _ responder: HTTPResponder) async {
        guard path == "/messages" || path == "/messages/count_tokens" else { return responder.respond(anthropic: .notFound(request.path)) }
        guard request.method == "POST" else { return responder.respond(anthropic: .methodNotAllowed(request.method, allowed: ["POST"])) }
        if path == "/messages" {
            await messages.handle(request, responder)
        } else {
            await messages.countTokens(request, responder)
        }
    }

    /// `GET /metrics`: the counters in Prometheus's text format.
    private func metrics(_ request: HTTPRequest, _ responder: HTTPResponder) {
        guard request.method == "GET" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["GET"])) }
        responder.respond(status: 200, headers: [("Content-Type", PrometheusText.contentType)],
                          body: Array(chat.metrics.text(limits: directory.limits).utf8))
    }

    private func get(_ request: HTTPRequest, _ responder: HTTPResponder, _ body: () throws -> JSONValue) {
        guard request.method == "GET" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["GET"])) }
        do { responder.respond(json: try body()) } catch { responder.respond(APIError.from(error)) }
    }

    /// The page's file, which needs no key.
    private func get(_ request: HTTPRequest, _ responder: HTTPResponder, _ file: WebPage.File) {
        guard request.method == "GET" else { return responder.respond(.methodNotAllowed(request.method, allowed: ["GET"])) }
        responder.respond(status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: file.bytes)
    }

    /// The HTTP server's own errors (a malformed request, a body over the limit) in the API's shape.
    static let errorBody: @Sendable (Int, String) -> (contentType: String, body: [UInt8]) = { status, message in
        let code = [408: "request_timeout", 411: "length_required", 413: "request_too_large", 431: "headers_too_large",
                    503: "server_busy"][status] ?? "invalid_request"
        return ("application/json", APIError(status: status, type: status >= 500 ? "server_error" : "invalid_request_error",
                                             code: code, message: message).body)
    }
}
