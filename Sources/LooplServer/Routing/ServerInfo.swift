import Foundation
import Loopl
import LooplHTTP

/// What Loopl knows about one server it talks to.
struct ServerInfo: Sendable {
    let endpoint: ServerEndpoint
    /// The context size of one request, when the server reports it or the configuration gives it.
    let contextSize: Int?
    /// True for llama-server, which takes its own sampling fields and reports timings.
    let llamaCpp: Bool
    /// llama-server's slots (`total_slots`); nil for other servers.
    let slots: Int?

    /// What a llama-server's `/props` says, or nil when the answer is not a llama-server's.
    static func llamaServer(_ endpoint: ServerEndpoint, props: JSONValue, configuration: LlamaServerModel.Configuration) -> ServerInfo? {
        guard let settings = props["default_generation_settings"] else { return nil }
        return ServerInfo(endpoint: endpoint, contextSize: settings["n_ctx"]?.intValue ?? configuration.contextLength,
                          llamaCpp: true, slots: props["total_slots"]?.intValue.flatMap { $0 > 0 ? $0 : nil })
    }

    /// Checks that an OpenAI-compatible server answers at `endpoint`, and whether it is llama-server.
    /// A llama-server that is still loading is waited for when `patient`, and fails the check otherwise.
    static func probe(_ endpoint: ServerEndpoint, configuration: LlamaServerModel.Configuration,
                      patient: Bool) async throws -> ServerInfo {
        let url = endpoint.baseURL
        // A llama-server that is still loading answers 503 on /health (and on /v1/models).
        var health = try await endpoint.fetch("/health")
        let deadline = ContinuousClock.now + (patient ? configuration.readinessStallTimeout : .zero)
        while health.status == 503, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            health = try await endpoint.fetch("/health")
        }
        if health.status == 503 {
            let waited = patient ? " after \(configuration.readinessStallTimeout)" : ""
            throw LooplError(.connectionFailed, "The server at \(url.redacted) is still loading\(waited). Try again later.")
        }
        let props = try await endpoint.fetch("/props")
        if props.status == 401 || props.status == 403 {
            throw ServerFailure.http(status: props.status, body: Data(props.text.utf8), url: url)
        }
        if props.status == 200, let info = llamaServer(endpoint, props: props.json, configuration: configuration) {
            return info
        }
        let models = try await endpoint.fetch("/v1/models")
        guard models.status == 200 else {
            if models.status == 401 || models.status == 403 {
                throw ServerFailure.http(status: models.status, body: Data(models.text.utf8), url: url)
            }
            throw LooplError(.protocolViolation, "The server at \(url.redacted) is not an OpenAI-compatible server: GET /v1/models answered HTTP \(models.status). Check the URL (without /v1).")
        }
        guard let list = models.json["data"]?.arrayValue else {
            throw LooplError(.protocolViolation, "The server at \(url.redacted) is not an OpenAI-compatible server: GET /v1/models did not answer a model list. Check the URL.")
        }
        let context = list.first?["max_model_len"]?.intValue ?? configuration.contextLength
        return ServerInfo(endpoint: endpoint, contextSize: context, llamaCpp: false, slots: nil)
    }
}
