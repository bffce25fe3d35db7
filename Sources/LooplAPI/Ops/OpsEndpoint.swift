import Loopl
import LooplHTTP
import LooplWeb

/// What runs the server rather than a model's turn: `GET /health`, `GET /metrics`, the model list
/// (`GET /v1/models`, `GET /v1/models/{id}`) and the transcript page's files.
struct OpsEndpoint: Sendable {
    let models: ServedModels
    /// When the server started: the `created` of every model it lists.
    let started = OpenAIFields.now()

    /// `{"status": "ok"}` while the server listens.
    func health(_ responder: HTTPResponder) {
        responder.respond(json: ["status": "ok"])
    }

    /// The counters in Prometheus's text format.
    func metrics(_ responder: HTTPResponder) async {
        let text = models.metrics.text(limits: models.directory.limits, tallies: await models.directory.tallies())
        responder.respond(status: 200, headers: [("Content-Type", PrometheusText.contentType)], body: Array(text.utf8))
    }

    /// Every served backend, then every alias, each with its backend's kind, state and size.
    func list(_ responder: HTTPResponder) async {
        var entries: [ModelObject] = []
        for id in models.directory.names.ids { entries.append(await entry(id)) }
        responder.respond(json: ModelObject.list(entries))
    }

    /// The model `id`, or a 404 listing the ids.
    func model(_ id: String, _ responder: HTTPResponder) async {
        let ids = models.directory.names.ids
        guard ids.contains(id) else { return responder.respond(APIError.modelNotFound(id, available: ids)) }
        responder.respond(json: await entry(id).json)
    }

    /// `POST /loopl/v1/models/{id}/load`: loads the model `id` now and answers its entry; 503
    /// with the reason when it cannot start.
    func load(_ id: String, _ request: HTTPRequest, _ responder: HTTPResponder) async {
        do throws(APIError) {
            let backend = try Self.backend(id, request, in: models.directory.names)
            _ = try await models.start(backend: backend)
            responder.respond(json: await entry(id).json)
        } catch {
            responder.respond(error)
        }
    }

    /// `POST /loopl/v1/models/{id}/unload`: closes the model `id`, ending its children and
    /// freeing its memory, and answers its entry; 409 while requests run or wait on it.
    func unload(_ id: String, _ request: HTTPRequest, _ responder: HTTPResponder) async {
        do throws(APIError) {
            try await models.directory.unload(try Self.backend(id, request, in: models.directory.names))
            responder.respond(json: await entry(id).json)
        } catch {
            responder.respond(error)
        }
    }

    /// The backend of the listed model `id` for a load or unload, whose body is empty or a JSON
    /// object; 404 for an id not listed.
    private static func backend(_ id: String, _ request: HTTPRequest, in names: ModelDirectory.Names) throws(APIError) -> String {
        guard names.ids.contains(id) else { throw .modelNotFound(id, available: names.ids) }
        if !request.body.isEmpty { _ = try RequestField.body(try RequestField.parse(body: request.body).value) }
        return try names.backend(for: id)
    }

    private func entry(_ id: String) async -> ModelObject {
        let directory = models.directory
        let backend = (try? directory.names.backend(for: id)) ?? id
        return ModelObject(id: id, created: started, kind: directory.kind(of: backend),
                           state: await directory.state(of: backend), size: directory.fileSize(of: backend),
                           usage: id == backend ? await directory.usage(of: backend) : nil)
    }

    /// The page's file at `path`, which needs no key.
    func page(_ path: String, _ responder: HTTPResponder) {
        guard let file = WebPage.file(at: path) else { return responder.respond(.notFound(path)) }
        responder.respond(status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: file.bytes)
    }
}
