import Loopl

/// An embeddings body, in OpenAI's shape (`POST /v1/embeddings`) or Ollama's (`POST /api/embed`,
/// and the older `POST /api/embeddings`).
///
/// OpenAI's: `model`, `input` (required: a string or a list of strings; token lists are refused),
/// `encoding_format` (`float`, the default, or `base64`), `dimensions` (checked against the
/// model's size by the endpoint). An input longer than the context is refused, as OpenAI does.
/// Ollama's: `model` (required), `input` (a string or a list of strings), `truncate` (default
/// true: an input longer than the context is cut to it); the older one's `prompt` (a string).
/// Other fields (`user`, `options`, `keep_alive`) are ignored.
package struct EmbeddingsRequest: Sendable {
    /// The model the client asked for; nil when it named none.
    package var model: String?
    /// The texts, one vector each.
    package var inputs: [String]
    /// Whether an input longer than the context is cut to it, rather than refused.
    package var truncate: Bool
    /// Whether OpenAI's vectors go out as base64 of little-endian float32s.
    package var base64 = false
    /// The vector size the client asked for (OpenAI's `dimensions`), if any.
    package var dimensions: Int?

    /// The most inputs one request takes, as OpenAI's limit.
    package static let maxInputs = 2048

    /// Reads an OpenAI body's bytes.
    package init(openAI bytes: [UInt8]) throws(APIError) {
        let body = try RequestField.body(try RequestField.parse(body: bytes).value)
        model = try body.member("model")?.string()
        inputs = try Self.inputs(body.required("input"))
        truncate = false
        if let format = body.member("encoding_format") {
            switch try format.string() {
            case "float": base64 = false
            case "base64": base64 = true
            case let other: throw format.error("is '\(other)': send \"float\" or \"base64\".")
            }
        }
        dimensions = try body.member("dimensions")?.integer(atLeast: 1)
    }

    /// Reads an Ollama body's bytes: `/api/embed`'s, or with `legacy` `/api/embeddings`' (`prompt`).
    package init(ollama bytes: [UInt8], legacy: Bool = false) throws(APIError) {
        let body = try RequestField.body(try RequestField.parse(body: bytes).value)
        guard let model = try body.member("model")?.string(), !model.isEmpty else { throw .ollamaModelRequired }
        self.model = model
        inputs = legacy ? [try body.required("prompt").string()] : try Self.inputs(body.required("input"))
        truncate = try body.member("truncate")?.bool() ?? true
    }

    /// A string, or a non-empty list of strings.
    private static func inputs(_ field: RequestField) throws(APIError) -> [String] {
        if let text = field.value.stringValue { return [text] }
        guard field.value.arrayValue != nil else { throw field.error("must be a string or a list of strings, not \(field.kind).") }
        let entries = try field.array()
        guard !entries.isEmpty else { throw field.error("is empty: send at least one text.") }
        guard entries.count <= maxInputs else { throw field.error("has \(entries.count) entries; send at most \(maxInputs) a request.") }
        var texts: [String] = []
        for entry in entries {
            guard let text = entry.value.stringValue else {
                throw entry.error("is \(entry.kind): send text; token lists are not taken, since the served model's tokenizer need not be the client's.")
            }
            texts.append(text)
        }
        return texts
    }
}
