import Foundation
import Loopl

/// What a backend's model needs in memory, estimated before it loads from its GGUF file: the
/// file's bytes for the weights, and the KV cache for `contextLength` × `parallel` tokens of
/// the cache type (`cacheTypeK`: f16, 2 bytes a value; q8_0, 34 bytes for 32).
package enum ModelMemory {
    /// The estimate for the backend `section` (its `model`, `contextLength`, `parallel` and
    /// `cacheTypeK`); 0 for a backend without a readable model file (a worker, an attached server).
    package static func estimate(_ section: JSONObject) -> Int {
        guard let path = section["model"]?.stringValue else { return 0 }
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber else { return 0 }
        guard let metadata = try? GGUFMetadata(contentsOf: file) else { return size.intValue }
        let context = section["contextLength"]?.intValue ?? metadata.contextLength ?? 4096
        let parallel = max(section["parallel"]?.intValue ?? 1, 1)
        let bytesPerValue = section["cacheTypeK"]?.stringValue == "q8_0" ? 34.0 / 32 : 2
        return size.intValue + Int(Double(kvValuesPerToken(metadata) * context * parallel) * bytesPerValue)
    }

    /// The keys and values one token stores across the layers.
    static func kvValuesPerToken(_ metadata: GGUFMetadata) -> Int {
        guard let arch = metadata.architecture else { return 0 }
        let int = { (key: String) -> Int? in metadata["\(arch).\(key)"]?.intValue }
        guard let layers = int("block_count"), let embedding = int("embedding_length") else { return 0 }
        let heads = max(int("attention.head_count") ?? 1, 1)
        let kvHeads = int("attention.head_count_kv") ?? heads
        let keyLength = int("attention.key_length") ?? embedding / heads
        let valueLength = int("attention.value_length") ?? embedding / heads
        return layers * kvHeads * (keyLength + valueLength)
    }

    /// `bytes` in MiB, rounded, for messages.
    package static func mib(_ bytes: Int) -> String { "\((bytes + (1 << 19)) >> 20) MiB" }
}
