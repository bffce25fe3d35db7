import Foundation
import Loopl

/// What Ollama's model lists and `/api/show` say of one backend, read from its GGUF file (the
/// `model` of a `llama` or `server` backend) without loading it; a backend without one (a stdio
/// worker) has empty details and no model info.
struct OllamaModelFacts: Sendable {
    /// The GGUF file's metadata; nil without one.
    let metadata: GGUFMetadata?
    /// The file's size in bytes (0 without one).
    let size: Int
    /// When the file was last changed (without one: when the server started).
    let modified: Date
    /// A stable id of the backend and its file: the SHA-256 of its name and the file's path, size
    /// and time (not of its bytes, which would mean reading gigabytes).
    let digest: String

    /// The facts of `backend`, whose GGUF file is at `path` (nil or unreadable: none).
    init(backend: String, file path: String?, started: Date) {
        let attributes = path.flatMap { try? FileManager.default.attributesOfItem(atPath: $0) }
        metadata = path.flatMap { try? GGUFMetadata(contentsOf: $0) }
        size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        modified = attributes?[.modificationDate] as? Date ?? started
        digest = SHA256.hex(SHA256.digest(Array("\(backend):\(path ?? ""):\(size):\(modified.timeIntervalSince1970)".utf8)))
    }

    /// Ollama's `details`: `format` (`gguf`), `family` and `families` (the architecture),
    /// `parameter_size` (`general.size_label`) and `quantization_level` (from `general.file_type`).
    var details: JSONValue {
        let family = metadata?.architecture ?? ""
        return ["parent_model": "", "format": metadata == nil ? "" : "gguf", "family": .string(family),
                "families": family.isEmpty ? JSONValue.null : .array([.string(family)]),
                "parameter_size": .string(metadata?["general.size_label"]?.stringValue ?? ""),
                "quantization_level": .string(metadata?["general.file_type"]?.intValue.flatMap { Self.fileTypes[$0] } ?? "")]
    }

    /// Every metadata key but the chat templates; arrays longer than 16 elements are empty unless `verbose`, as Ollama's.
    func modelInfo(verbose: Bool) -> JSONValue {
        guard let metadata else { return [:] }
        var info = JSONObject()
        for key in metadata.keys where !key.hasPrefix("tokenizer.chat_template") {
            guard let value = metadata[key] else { continue }
            if !verbose, let elements = value.arrayValue, elements.count > 16 {
                info[key] = []
            } else {
                info[key] = value.jsonValue()
            }
        }
        return .object(info)
    }

    /// llama.cpp's `general.file_type` values, by the names Ollama shows.
    static let fileTypes = [0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
                            12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
                            32: "BF16"]
}
