import Loopl
import LooplHTTP

/// Ollama's API beside the other dialects: `/api/...` (errors as `{"error": ...}`, bodies read
/// as JSON however they were sent) and `GET`/`HEAD /`, which answers `Ollama is running` unless
/// the client asks for HTML (a browser, which gets the transcript page).
struct OllamaRoutes: Sendable {
    let endpoint: OllamaEndpoint
    let catalog: OllamaCatalog

    /// Whether `path` is one of Ollama's (`/api/...`).
    static func owns(_ path: String) -> Bool { path.hasPrefix("/api/") }

    /// Whether `request` for `/` is a client checking for Ollama rather than a browser.
    static func isProbe(_ request: HTTPRequest) -> Bool {
        request.path == "/" && !(request.headers["Accept"]?.lowercased().contains("text/html") ?? false)
    }

    /// `Ollama is running`, as `text/plain`, for `GET` and `HEAD /`.
    static func probe(_ request: HTTPRequest, _ responder: HTTPResponder) {
        guard request.method == "GET" || request.method == "HEAD" else {
            return responder.respond(ollama: .methodNotAllowed(request.method, allowed: ["GET", "HEAD"]))
        }
        responder.respond(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array("Ollama is running".utf8))
    }

    func handle(_ path: String, _ request: HTTPRequest, _ responder: HTTPResponder) async {
        switch (path, request.method) {
        case ("/api/chat", "POST"): await endpoint.chat(request, responder)
        case ("/api/generate", "POST"): await endpoint.generate(request, responder)
        case ("/api/tags", "GET"), ("/api/tags", "HEAD"): responder.respond(json: catalog.tags())
        case ("/api/ps", "GET"): responder.respond(json: await catalog.ps())
        case ("/api/version", "GET"), ("/api/version", "HEAD"): responder.respond(json: ["version": .string(OllamaCatalog.version)])
        case ("/api/show", "POST"):
            do { responder.respond(json: try catalog.show(request.body)) } catch { responder.respond(ollama: APIError.from(error)) }
        default:
            responder.respond(ollama: Self.refusal(path, request))
        }
    }

    /// Why `path` is not answered: a wrong method, an endpoint not served, or none at all.
    private static func refusal(_ path: String, _ request: HTTPRequest) -> APIError {
        let methods = ["/api/chat": ["POST"], "/api/generate": ["POST"], "/api/tags": ["GET", "HEAD"], "/api/ps": ["GET"],
                       "/api/version": ["GET", "HEAD"], "/api/show": ["POST"]]
        if let allowed = methods[path] { return .methodNotAllowed(request.method, allowed: allowed) }
        if ["/api/pull", "/api/push", "/api/create", "/api/copy", "/api/delete"].contains(path) || path.hasPrefix("/api/blobs/") {
            return APIError(status: 501, type: "server_error", code: "not_implemented",
                            message: "\(path) is not served: models are the config's backends (loopl backends lists them), not pulled from a registry; add or remove a backend in the config and restart loopl serve.")
        }
        if path == "/api/embed" || path == "/api/embeddings" {
            return APIError(status: 501, type: "server_error", code: "not_implemented",
                            message: "\(path) is not served yet: embeddings are not served by loopl serve.")
        }
        return .ollamaNotFound(path)
    }
}
