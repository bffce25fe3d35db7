import Loopl

/// A `POST /api/generate` body: ``OllamaSettings``, `prompt` (absent or empty starts the model
/// and answers `done_reason: "load"`), `system` (the system prompt before it), `raw` (true:
/// the prompt as given, with no chat template, on a backend that takes raw prompts) and
/// `template` (a legacy Ollama template, see ``OllamaTemplate``, in place of the model's chat
/// template: its text is then the raw prompt).
///
/// Refused with a 400: `raw` with `system` or `template`; `suffix` (no backend here fills in the
/// middle); `context` (token memory is not kept: send the conversation to /api/chat); `images`.
/// `logprobs`, `truncate`, `shift` and other fields are ignored.
package struct OllamaGenerateRequest: Sendable {
    package var settings: OllamaSettings
    package var prompt: String
    package var system: String?
    /// True when the prompt is completed as it stands (`raw`, or rendered from `template`).
    package var raw: Bool

    /// Reads a body's bytes.
    package init(body: [UInt8]) throws(APIError) {
        let body = try RequestField.body(try OllamaRequestBody.parse(body))
        settings = try OllamaSettings(body)
        prompt = try body.member("prompt")?.string() ?? ""
        system = try body.member("system")?.string()
        raw = try body.member("raw")?.bool() ?? false
        for name in ["system", "template"] where raw {
            if let field = body.member(name), try !field.string().isEmpty {
                throw field.error("is not taken with raw: true; write the whole prompt yourself.")
            }
        }
        if let template = body.member("template"), try !template.string().isEmpty, !prompt.isEmpty {
            prompt = try OllamaTemplate.render(try template.string(), system: system ?? "", prompt: prompt, field: template)
            raw = true
        }
        if let suffix = body.member("suffix"), try !suffix.string().isEmpty {
            throw suffix.error("is not supported: no model served here fills in the middle; send the prompt alone.")
        }
        if let context = body.member("context"), try !context.array().isEmpty {
            throw context.error("is not supported: token memory is not kept; send the conversation to /api/chat.")
        }
        if let images = body.member("images"), try !images.array().isEmpty {
            throw images.error("holds images, which are not supported: no model served here reads images; send text only.")
        }
    }

    /// The conversation a templated prompt is: the system prompt, then the prompt as the user's turn.
    package var messages: [Message] {
        (system.map { $0.isEmpty ? [] : [Message.system($0)] } ?? []) + [.user(prompt)]
    }
}
