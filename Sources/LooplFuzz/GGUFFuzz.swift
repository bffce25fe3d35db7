import Foundation
import Loopl

/// The GGUF metadata reader on a file's bytes, then every summary it offers.
package enum GGUFFuzz {
    package static let target = FuzzTarget(name: "gguf", dictionary: dictionary.map { Array($0.utf8) } + binary) { run($0); return nil }

    static func run(_ bytes: [UInt8]) {
        guard let metadata = try? GGUFMetadata(data: Data(bytes)) else { return }
        _ = metadata.jsonValue(arrayLimit: 4).jsonText()
        _ = (metadata.contextLength, metadata.bosToken, metadata.eosToken, metadata.chatTemplateNames)
        if let source = metadata.chatTemplate { _ = try? ChatTemplate(source: source) }
    }

    static let dictionary = [
        "GGUF", "general.architecture", "llama", "llama.context_length", "tokenizer.chat_template",
        "tokenizer.chat_template.tool_use", "tokenizer.ggml.tokens", "tokenizer.ggml.bos_token_id",
        "tokenizer.ggml.eos_token_id",
    ]

    /// Value types (string, array, unknown) and huge counts.
    static let binary: [[UInt8]] = [
        [3, 0, 0, 0], [8, 0, 0, 0], [9, 0, 0, 0], [13, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0xFF],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [0, 0, 0, 0, 0, 0, 0, 0x80],
    ]
}
