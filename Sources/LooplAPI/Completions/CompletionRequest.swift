import Loopl

/// A `POST /v1/completions` body: a raw prompt, tokenized as given with no chat template.
///
/// Read: `model`, `prompt` (required: a string, or a list of one string), `max_tokens` (default
/// 16, as OpenAI's), `temperature`, `top_p`, `top_k`, `min_p`, `repeat_penalty`, `seed`, `stop`,
/// `stream`, `stream_options.include_usage`, as chat completions read them. `n` and `best_of` must
/// be 1, `echo` false and `logprobs` null. Other fields are ignored.
package struct CompletionRequest: Sendable {
    /// The model the client asked for; nil when it named none.
    package var model: String?
    /// `keep_alive`: how long the model stays loaded after this request; nil: its backend's.
    package var keepAlive: KeepAlive?
    /// The prompt, as the model continues it.
    package var prompt: String
    /// Sampling, the token limit and stop strings.
    package var options: GenerationOptions
    /// True when the client wants server-sent events.
    package var stream: Bool
    /// True when a streamed answer ends with a chunk that holds the usage.
    package var includeUsage: Bool

    /// OpenAI's default `max_tokens` for completions.
    package static let defaultMaxTokens = 16

    /// Reads a body's bytes: a 400 `invalid_json` when they are not UTF-8 JSON.
    package init(body: [UInt8]) throws(APIError) {
        try self.init(json: try RequestField.parse(body: body).value)
    }

    /// Reads a parsed body, which must be a JSON object.
    package init(json: JSONValue) throws(APIError) {
        let body = try RequestField.body(json)
        model = try body.member("model")?.string()
        keepAlive = try body.keepAliveMember()
        prompt = try Self.prompt(body.required("prompt"))
        for name in ["n", "best_of"] {
            guard let field = body.member(name) else { continue }
            let count = try field.integer()
            guard count == 1 else { throw field.error("is \(count): only one choice per request is served; send 1 or leave it out.") }
        }
        if let echo = body.member("echo"), try echo.bool() {
            throw echo.error("is true: the prompt is not echoed; send false or leave it out.")
        }
        if let logprobs = body.member("logprobs") {
            throw logprobs.error("is \(logprobs.kind): log probabilities are not returned; send null or leave it out.")
        }
        stream = try body.member("stream")?.bool() ?? false
        includeUsage = try body.member("stream_options")?.object().member("include_usage")?.bool() ?? false
        options = GenerationOptions(maxTokens: Self.defaultMaxTokens)
        try ChatRequest.readSampling(body, into: &options)
        try ChatRequest.readLimits(body, into: &options)
    }

    /// A string, or a list of exactly one string; token lists are refused.
    private static func prompt(_ field: RequestField) throws(APIError) -> String {
        if let text = field.value.stringValue { return text }
        guard field.value.arrayValue != nil else { throw field.error("must be a string or a list of one string, not \(field.kind).") }
        let entries = try field.array()
        guard entries.count == 1 else {
            throw field.error("has \(entries.count) entries: send one prompt per request, as a string or a list of one string.")
        }
        guard entries[0].value.stringValue != nil else {
            throw entries[0].error("must be a string: prompts given as token ids are not taken; send the text.")
        }
        return try entries[0].string()
    }
}
