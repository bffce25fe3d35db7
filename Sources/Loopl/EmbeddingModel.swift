/// A ``Model`` that also turns text into embedding vectors, for retrieval and similarity.
///
/// Every backend's model is one; a backend that cannot embed as configured (a `server` backend
/// without `"embeddings": true`, a stdio worker that does not declare `embeddings`) fails with
/// ``LooplError/cannotEmbed(_:)``, and a model that is no `EmbeddingModel` cannot embed at all.
public protocol EmbeddingModel: Model {
    /// One vector for each of `inputs`, in their order, L2-normalised, and the tokens they took.
    ///
    /// An input longer than the context is cut to the context's tokens when `truncate` is true,
    /// and fails with ``LooplError/Code/contextOverflow`` (naming its count) otherwise. The inputs
    /// of one call are evaluated together as far as the engine allows.
    func embed(_ inputs: [String], truncate: Bool) async throws -> Embeddings
}

/// The vectors of an ``EmbeddingModel/embed(_:truncate:)`` call.
public struct Embeddings: Sendable, Hashable, Codable {
    /// One L2-normalised vector for each input, in the inputs' order.
    public var vectors: [[Float]]
    /// The tokens of every input together, as evaluated (after any truncation).
    public var tokens: Int

    public init(vectors: [[Float]], tokens: Int) {
        self.vectors = vectors
        self.tokens = tokens
    }

    /// `vector` scaled to length 1 (a zero vector stays zero).
    public static func normalised(_ vector: [Float]) -> [Float] {
        let norm = vector.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0 else { return vector }
        return vector.map { Float(Double($0) / norm) }
    }
}

extension LooplError {
    /// The error of a model that cannot embed; `why` says what to change.
    public static func cannotEmbed(_ why: String) -> LooplError {
        LooplError(.invalidRequest, "This model cannot compute embeddings: \(why)")
    }

    /// The error of an input of `count` tokens for a context of `context`, not to be truncated.
    public static func embeddingTooLong(input index: Int, count: Int, context: Int) -> LooplError {
        LooplError(.contextOverflow, "Input \(index) is \(count) tokens long, more than the model's context of \(context): shorten it, or ask for truncation (truncate).")
    }
}

extension Model {
    /// This model's embeddings of `inputs`, or ``LooplError/cannotEmbed(_:)`` when it is no ``EmbeddingModel``.
    public func embeddings(_ inputs: [String], truncate: Bool = false) async throws -> Embeddings {
        guard let model = self as? any EmbeddingModel else {
            throw LooplError.cannotEmbed("its backend has no embeddings; serve it on llama, server (with \"embeddings\": true) or stdio.")
        }
        return try await model.embed(inputs, truncate: truncate)
    }
}

/// How one vector is made of an input's token vectors (llama.cpp's pooling), the `pooling` key of
/// a `llama` or `server` backend.
public enum EmbeddingPooling: String, Sendable, Hashable, CaseIterable, Codable {
    /// The mean of every token's vector.
    case mean
    /// The first token's vector.
    case cls
    /// The last token's vector.
    case last
}
