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
    func metrics(_ responder: HTTPResponder) {
        responder.respond(status: 200, headers: [("Content-Type", PrometheusText.contentType)],
                          body: Array(models.metrics.text(limits: models.directory.limits).utf8))
    }

    /// Every served backend, then every alias.
    func list(_ responder: HTTPResponder) {
        responder.respond(json: ModelObject.list(models.directory.names.ids.map { ModelObject(id: $0, created: started) }))
    }

    /// The model `id`, or a 404 listing the ids.
    func model(_ id: String, _ responder: HTTPResponder) {
        let ids = models.directory.names.ids
        guard ids.contains(id) else { return responder.respond(APIError.modelNotFound(id, available: ids)) }
        responder.respond(json: ModelObject(id: id, created: started).json)
    }

    /// The page's file at `path`, which needs no key.
    func page(_ path: String, _ responder: HTTPResponder) {
        guard let file = WebPage.file(at: path) else { return responder.respond(.notFound(path)) }
        responder.respond(status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: file.bytes)
    }
}
