import Loopl

/// What `/api/chat` and `/api/generate` read alike: `model` (required; `NAME:latest` is `NAME`),
/// `stream` (true unless false), `options`, `format`, `think` and `keep_alive`.
///
/// `options`: `temperature`, `top_p`, `top_k`, `min_p`, `repeat_penalty`, `seed` (-1 random) and
/// `stop` (a string or a list) as chat completions read them; `num_predict` (a positive count;
/// -1, -2 or 0: until the model stops or the context is full); `num_ctx` is read and checked but
/// the context is the backend's own (`contextLength`). Ollama's other options (`num_keep`,
/// `typical_p`, `repeat_last_n`, `presence_penalty`, `mirostat`, `num_gpu`, `num_thread`, ...)
/// are ignored. `format`: `"json"` (any JSON object), a JSON Schema, or `""` (free text).
/// `think`: true, false, or `"low"`, `"medium"`, `"high"` (`"max"` is `"high"`). `keep_alive`:
/// seconds as a number, or a duration such as `"5m"`, `"1h30m"`, `"0"`, `"-1"`: how long the model
/// stays loaded after this request (``KeepAlive``).
package struct OllamaSettings: Sendable {
    /// The model as the client named it, which every answer repeats.
    package var model: String
    /// Sampling, limits, stop strings, format and thinking.
    package var options = GenerationOptions()
    /// False when the client asked for one object (`"stream": false`).
    package var stream: Bool
    /// `keep_alive`; nil when not given.
    package var keepAlive: KeepAlive?

    /// Reads the shared fields of `body`, a JSON object.
    package init(_ body: RequestField) throws(APIError) {
        guard let model = try body.member("model")?.string(), !model.isEmpty else { throw .ollamaModelRequired }
        self.model = model
        stream = try body.member("stream")?.bool() ?? true
        if let field = body.member("options") { try Self.read(options: try field.object(), into: &options) }
        if let field = body.member("format") { options.responseFormat = try Self.format(field) }
        if let field = body.member("think") { options.reasoning = try Self.think(field) }
        keepAlive = try body.member("keep_alive")?.keepAlive()
    }

    /// The backend that answers `name`: a name or alias, `NAME:latest` being `NAME`; else a 404
    /// worded as Ollama's (`model 'NAME' not found`), which some clients look for.
    package static func backend(for name: String, in names: ModelDirectory.Names) throws(APIError) -> String {
        if name.hasSuffix(":latest"), !names.ids.contains(name) {
            let bare = String(name.dropLast(":latest".count))
            if let backend = try? names.backend(for: bare) { return backend }
        }
        do {
            return try names.backend(for: name)
        } catch {
            guard error.code == "model_not_found" else { throw error }
            let served = names.ids.map(OllamaCatalog.tagged).joined(separator: ", ")
            throw APIError(status: 404, type: error.type, code: error.code,
                           message: "model '\(name)' not found; the models served here are \(served) (the config's backends and aliases).",
                           param: "model")
        }
    }

    private static func read(options field: RequestField, into options: inout GenerationOptions) throws(APIError) {
        try ChatRequest.readSampling(field, into: &options)
        try ChatRequest.readLimits(field, into: &options)
        if let predict = field.member("num_predict") {
            let count = try predict.integer()
            options.maxTokens = count > 0 ? count : nil
        }
        if let context = field.member("num_ctx") { _ = try context.integer(atLeast: 1) }
    }

    private static func format(_ field: RequestField) throws(APIError) -> ResponseFormat {
        if let word = field.value.stringValue {
            switch word {
            case "": return .text
            case "json": return .jsonObject
            default: throw field.error("is \"\(word)\": send \"json\" or a JSON Schema object.")
            }
        }
        return .jsonSchema(try field.object().value)
    }

    private static func think(_ field: RequestField) throws(APIError) -> ReasoningSetting {
        if let on = field.value.boolValue { return on ? .on : .off }
        let level = try field.string()
        if level == "max" { return .effort(.high) }
        guard let effort = ReasoningSetting.Effort(rawValue: level) else {
            throw field.error("is \"\(level)\": send true, false, \"low\", \"medium\", \"high\" or \"max\".")
        }
        return .effort(effort)
    }
}
