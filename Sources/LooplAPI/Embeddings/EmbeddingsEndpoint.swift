import Foundation
import Loopl
import LooplHTTP

/// `POST /v1/embeddings` (OpenAI's), `POST /api/embed` and `POST /api/embeddings` (Ollama's):
/// L2-normalised vectors of the backend's ``EmbeddingModel``, under its limit like a turn.
struct EmbeddingsEndpoint: Sendable {
    let models: ServedModels

    /// OpenAI's: `{"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model", "usage"}`.
    func openAI(_ request: HTTPRequest, _ responder: HTTPResponder) async {
        do {
            let body = try EmbeddingsRequest(openAI: request.body)
            let model = try await models.start(named: body.model)
            let embeddings = try await Self.embed(body, on: model)
            if let dimensions = body.dimensions, let size = embeddings.vectors.first?.count, dimensions != size {
                throw APIError.invalidRequest("`dimensions` is \(dimensions), but this model's vectors have \(size) dimensions and cannot be shortened: send \(size) or leave it out.", param: "dimensions")
            }
            let data = embeddings.vectors.enumerated().map { index, vector -> JSONValue in
                ["object": "embedding", "index": .integer(index),
                 "embedding": body.base64 ? .string(Self.base64(vector)) : .array(vector.map { .double(Double($0)) })]
            }
            responder.respond(json: ["object": "list", "data": .array(data), "model": .string(model.name),
                                     "usage": ["prompt_tokens": .integer(embeddings.tokens), "total_tokens": .integer(embeddings.tokens)]])
        } catch {
            responder.respond(APIError.from(error))
        }
    }

    /// Ollama's `/api/embed` (`{"model", "embeddings", "total_duration", "load_duration",
    /// "prompt_eval_count"}`), or with `legacy` `/api/embeddings` (`{"embedding"}`).
    func ollama(_ request: HTTPRequest, _ responder: HTTPResponder, legacy: Bool = false) async {
        do {
            let started = ContinuousClock.now
            let body = try EmbeddingsRequest(ollama: request.body, legacy: legacy)
            let model = try await models.start(backend: try OllamaSettings.backend(for: body.model ?? "", in: models.directory.names))
            let loaded = ContinuousClock.now - started
            let embeddings = try await Self.embed(body, on: model)
            let vectors = embeddings.vectors.map { JSONValue.array($0.map { .double(Double($0)) }) }
            if legacy { return responder.respond(json: ["embedding": vectors.first ?? []]) }
            responder.respond(json: ["model": .string(body.model ?? model.name), "embeddings": .array(vectors),
                                     "total_duration": .integer(OllamaAnswer.nanoseconds(ContinuousClock.now - started)),
                                     "load_duration": .integer(OllamaAnswer.nanoseconds(loaded)),
                                     "prompt_eval_count": .integer(embeddings.tokens)])
        } catch {
            responder.respond(ollama: APIError.from(error))
        }
    }

    /// The vectors, an input too long for the context answered as a 400 naming `input`.
    private static func embed(_ body: EmbeddingsRequest, on model: ServedModel) async throws -> Embeddings {
        do { return try await model.embed(body.inputs, truncate: body.truncate) } catch let error as LooplError where error.code == .contextOverflow {
            throw APIError(status: 400, type: "invalid_request_error", code: "context_length_exceeded", message: error.message, param: "input")
        }
    }

    /// `vector` as base64 of its little-endian float32s, as OpenAI's `encoding_format: "base64"`.
    static func base64(_ vector: [Float]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(vector.count * 4)
        for value in vector { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        return Data(bytes).base64EncodedString()
    }
}
