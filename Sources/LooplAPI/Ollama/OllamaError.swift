import Loopl
import LooplHTTP

extension APIError {
    /// The error as Ollama writes it: `{"error": "..."}`.
    package var ollamaJSON: JSONValue { ["error": .string(message)] }

    /// ``ollamaJSON`` as compact UTF-8 JSON, the body of an error answer.
    package var ollamaBody: [UInt8] { Array(ollamaJSON.jsonText().utf8) }

    /// The error as the line that ends an Ollama stream which already began.
    package var ollamaStreamLine: [UInt8] { OllamaStreamEncoder.line(ollamaJSON) }

    /// 400: Ollama's endpoints all name their model.
    static var ollamaModelRequired: APIError { .invalidRequest("model is required", param: "model") }

    /// 404: an endpoint of Ollama's API that is not served here.
    static func ollamaNotFound(_ path: String) -> APIError {
        APIError(status: 404, type: "invalid_request_error", code: "unknown_url",
                 message: "Unknown request URL \(path): Ollama's endpoints served here are /api/chat, /api/generate, /api/embed, /api/embeddings, /api/tags, /api/ps, /api/show and /api/version.")
    }
}

extension HTTPResponder {
    /// Answers with `error`'s status and headers and its body in Ollama's shape.
    func respond(ollama error: APIError) {
        respond(status: error.status, headers: error.headers + JSONHeaders.contentType, body: error.ollamaBody)
    }
}
