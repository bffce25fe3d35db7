extension EmbeddingPooling {
    /// The pooling the GGUF file at `path` declares in `<architecture>.pooling_type` (1 mean,
    /// 2 cls, 3 last), else (none, or a file it cannot read) mean, as llama-server's embeddings need one.
    public static func declared(byModel path: String) -> EmbeddingPooling {
        guard let metadata = try? GGUFMetadata(contentsOf: path), let architecture = metadata.architecture,
              let value = metadata["\(architecture).pooling_type"]?.intValue else { return .mean }
        switch value {
        case 2: return .cls
        case 3: return .last
        default: return .mean
        }
    }
}
