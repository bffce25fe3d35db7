import Foundation
import Loopl
import LooplHTTP
import LooplWeb

/// `loopl serve`: the OpenAI-compatible API over the configured backends, on Loopl's HTTP server.
package final class APIServer: Sendable {
    private let directory: ModelDirectory
    private let settings: ServeSettings
    private let http: HTTPServer

    /// Binds `host:port` (0 picks a free port), calls `listening` with the port, then serves the
    /// backends in `directory`.
    package init(directory: ModelDirectory, host: String, port: Int, key: APIKey?, settings: ServeSettings,
                 toolkit: AgentToolkit = .none, listening: (Int) -> Void = { _ in }) throws {
        self.directory = directory
        self.settings = settings
        let endpoints = try Self.endpoints(directory: directory, settings: settings, toolkit: toolkit)
        let hosts = HostCheck(listening: host, allowed: settings.allowedHosts)
        // The order every request passes them in, before its route.
        let checks = RequestChecks(stages: [
            hosts,
            BrowserCheck(hosts: hosts, origins: settings.corsOrigins),
            CORSPolicy(origins: settings.corsOrigins, keyed: key != nil),
            KeyCheck(key: key),
            JSONBodyCheck(),
        ])
        let routes = RouteTable.serve(metricsPublic: settings.metricsPublic)
        var limits = HTTPLimits()
        limits.maxBodyBytes = settings.maxRequestBytes
        http = try HTTPServer.listen(host: host, port: port, limits: limits, errorBody: Self.errorBody, headers: WebPage.headers,
                                     listening: listening) { request, responder in
            await routes.handle(request, checks: checks, endpoints: endpoints, responder)
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

    /// The endpoints `loopl serve` answers, one a line, for its help.
    package static var endpointList: String { RouteTable.serve().help }

    private static func endpoints(directory: ModelDirectory, settings: ServeSettings, toolkit: AgentToolkit) throws -> ServeEndpoints {
        let models = ServedModels(directory: directory, keepAlive: settings.keepAliveInterval, metrics: ServeMetrics())
        let sessions = SessionStore(directory: settings.sessionsDir)
        return ServeEndpoints(
            chat: ChatEndpoint(models: models), completions: CompletionsEndpoint(models: models),
            responses: ResponsesEndpoint(models: models, store: try ResponsesStore(directory: settings.responsesDir)),
            messages: MessagesEndpoint(models: models), ollama: OllamaEndpoint(models: models),
            embeddings: EmbeddingsEndpoint(models: models),
            catalog: OllamaCatalog(directory: directory),
            runs: RunsEndpoint(models: models, toolkit: toolkit, store: sessions, approval: settings.approval,
                               approvalTimeout: settings.approvalTimeout),
            sessions: SessionsEndpoint(store: sessions), ops: OpsEndpoint(models: models))
    }

    /// The HTTP server's own errors (a malformed request, a body over the limit) in the API's shape.
    static let errorBody: @Sendable (Int, String) -> (contentType: String, body: [UInt8]) = { status, message in
        let code = [408: "request_timeout", 411: "length_required", 413: "request_too_large", 431: "headers_too_large",
                    503: "server_busy"][status] ?? "invalid_request"
        return ("application/json", APIError(status: status, type: status >= 500 ? "server_error" : "invalid_request_error",
                                             code: code, message: message).body)
    }
}
