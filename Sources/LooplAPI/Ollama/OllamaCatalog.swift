import Foundation
import Loopl
import LooplHTTP

/// Ollama's model endpoints over the served backends: `GET /api/tags` (every name and alias, as
/// `NAME:latest`), `GET /api/ps` (the backends started), `POST /api/show` (a model's chat
/// template, parameters and GGUF metadata) and `GET /api/version`.
struct OllamaCatalog: Sendable {
    /// The version of Ollama's API that this dialect follows (its docs/api.md and api/types.go).
    static let version = "0.32.15"

    let directory: ModelDirectory
    /// When the server started: the `modified_at` of a model without a file.
    let started = Date()

    func tags() -> JSONValue {
        ["models": .array(directory.names.ids.map { id in
            let facts = facts(of: (try? directory.names.backend(for: id)) ?? id)
            return entry(Self.tagged(id), facts, ["modified_at": .string(OllamaAnswer.timestamp(facts.modified))])
        })]
    }

    /// The loaded backends; `expires_at` is when an idle one is unloaded (its keep-alive), far
    /// ahead for one kept forever.
    func ps() async -> JSONValue {
        var models: [JSONValue] = []
        for (backend, model) in await directory.running() {
            let context = (try? await model.contextSize) ?? 0
            let expiry = await directory.expiry(of: backend).map { Date().addingTimeInterval(Self.seconds(until: $0)) }
            models.append(entry(Self.tagged(backend), facts(of: backend), [
                "expires_at": .string(OllamaAnswer.timestamp(expiry ?? Date(timeIntervalSince1970: 1e10))),
                "size_vram": 0, "context_length": .integer(context)]))
        }
        return ["models": .array(models)]
    }

    /// `/api/show` for the body `{"model", "verbose"}`.
    func show(_ body: [UInt8]) throws(APIError) -> JSONValue {
        let request = try RequestField.body(try OllamaRequestBody.parse(body))
        guard let name = try (request.member("model") ?? request.member("name"))?.string(), !name.isEmpty else {
            throw .ollamaModelRequired
        }
        let backend = try OllamaSettings.backend(for: name, in: directory.names)
        let facts = facts(of: backend)
        let template = facts.metadata?.chatTemplate ?? ""
        var capabilities: [JSONValue] = ["completion", "tools"]
        if ["<think>", "enable_thinking", "reasoning_content"].contains(where: template.contains) { capabilities.append("thinking") }
        let context = directory.section(of: backend)?["contextLength"]?.intValue
        return ["modelfile": "", "parameters": .string(context.map { "num_ctx \($0)" } ?? ""), "template": .string(template),
                "details": facts.details, "model_info": facts.modelInfo(verbose: try request.member("verbose")?.bool() ?? false),
                "capabilities": .array(capabilities), "modified_at": .string(OllamaAnswer.timestamp(facts.modified))]
    }

    private func facts(of backend: String) -> OllamaModelFacts {
        OllamaModelFacts(backend: backend, file: directory.section(of: backend)?["model"]?.stringValue, started: started)
    }

    private func entry(_ name: String, _ facts: OllamaModelFacts, _ extra: JSONObject) -> JSONValue {
        var entry: JSONObject = ["name": .string(name), "model": .string(name), "size": .integer(facts.size),
                                 "digest": .string(facts.digest), "details": facts.details]
        for (key, value) in extra { entry[key] = value }
        return .object(entry)
    }

    private static func seconds(until instant: ContinuousClock.Instant) -> TimeInterval {
        let left = instant - .now
        return Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18
    }

    /// `NAME:latest` for a name without a tag.
    static func tagged(_ name: String) -> String { name.contains(":") ? name : name + ":latest" }
}
