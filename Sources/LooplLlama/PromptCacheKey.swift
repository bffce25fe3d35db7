import CLlama
import Foundation

/// What a saved prompt state is valid for: the model file (its size, modification time and a
/// hash of its header), the llama.cpp build (``library``, and its state format) and the context settings the state depends on.
struct PromptCacheKey: Equatable {
    /// The full key, stored in every file and compared when one is loaded.
    let text: String

    /// The bytes of the model file that are hashed: its header and metadata.
    static let headerBytes = 1 << 20

    init?(model path: String, contextSize: Int, parallel: Int, batchSize: Int, keys: CacheType,
          attention: FlashAttention = .auto, alignment: Int? = nil) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date,
              let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: Self.headerBytes)) ?? Data())
        let hash = PromptCacheFile.checksum(header[...])
        text = ["model=\(path)", "size=\(size)", "mtime=\(modified.timeIntervalSince1970)",
                "header=\(String(hash, radix: 16))", "llama=\(Self.library)", "state=\(LLAMA_STATE_SEQ_VERSION)",
                "ctx=\(contextSize)", "seqs=\(parallel)", "batch=\(batchSize)", "keys=\(keys.rawValue)", "flash=\(attention.rawValue)"].joined(separator: " ")
            // States evaluated in aligned chunks are kept apart from the others (``LlamaModel/Configuration/reproducible``).
            + (alignment.map { " aligned=\($0)" } ?? "")
    }

    /// The start of the names of this key's files: a hash of the key.
    var fileStem: String {
        PromptCache.hex(PromptCacheFile.checksum(Array(text.utf8)[...]))
    }

    /// The build of llama.cpp this process runs: it is linked statically, so the executable that
    /// holds it (its path, size and modification time), with llama.cpp's system description.
    static let library: String = {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let attributes = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        let size = attributes[.size] as? Int ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let system = llama_print_system_info().map { String(cString: $0) } ?? ""
        return "\(path):\(size):\(modified):\(PromptCacheFile.checksum(Array(system.utf8)[...]))"
    }()
}
