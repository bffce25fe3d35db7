import CLlama
import Foundation
import Loopl

/// A GGUF model's weights and vocabulary, loaded once and shareable by several contexts.
public final class LlamaWeights: @unchecked Sendable {
    // The model is immutable after loading; llama.cpp allows concurrent reads.
    let pointer: OpaquePointer
    let vocab: OpaquePointer
    /// The file it was loaded from.
    public let path: String

    /// Loads the model at `path`. Throws `modelNotFound` or `invalidModel` with the reason.
    public init(path: String, gpuLayers: Int = 0, progress: (@Sendable (Double) -> Void)? = nil) throws {
        LlamaBackend.ensureInitialised()
        try LlamaWeights.checkFile(path)
        try LlamaWeights.checkLayerCount(path)
        var params = llama_model_default_params()
        params.n_gpu_layers = Int32(clamping: gpuLayers)
        let box = progress.map { ProgressBox($0) }
        if let box {
            params.progress_callback = { value, data in
                if let data { Unmanaged<ProgressBox>.fromOpaque(data).takeUnretainedValue().report(Double(value)) }
                return true
            }
            params.progress_callback_user_data = Unmanaged.passUnretained(box).toOpaque()
        }
        guard let model = withExtendedLifetime(box, { llama_model_load_from_file(path, params) }) else {
            throw LooplError(.invalidModel, "llama.cpp could not load \(path): the file is damaged, truncated, of an unsupported architecture, or too large for memory. Check the file, or run it through `loopl worker` to keep the host safe.")
        }
        guard let vocab = llama_model_get_vocab(model) else {
            llama_model_free(model)
            throw LooplError(.invalidModel, "\(path) has no vocabulary.")
        }
        self.pointer = model
        self.vocab = vocab
        self.path = path
        endOfGenerationTokens = (0..<llama_vocab_n_tokens(vocab)).filter { llama_vocab_is_eog(vocab, $0) }
    }

    deinit { llama_model_free(pointer) }

    /// Checks that `path` is a readable regular file that starts with the GGUF magic.
    static func checkFile(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw LooplError(.modelNotFound, "No model file at \(path). Run scripts/bootstrap for the default model, or give the path of a .gguf file.")
        }
        guard !isDirectory.boolValue else {
            throw LooplError(.invalidModel, "\(path) is a directory, not a GGUF model file: give the path of the .gguf file.")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LooplError(.modelNotFound, "Cannot read \(path): check its permissions.")
        }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 4)) ?? Data()
        guard magic == Data("GGUF".utf8) else {
            throw LooplError(.invalidModel, "\(path) is not a GGUF model file (it does not start with 'GGUF').")
        }
    }

    /// The most layers llama.cpp accepts (LLAMA_MAX_LAYERS); its loader aborts the process on more.
    static let maxLayers = 512

    /// Refuses a layer count (`<architecture>.block_count`) that would make llama.cpp's loader
    /// abort instead of failing. Metadata it cannot read is left for the loader to report.
    static func checkLayerCount(_ path: String) throws {
        guard let gguf = gguf_init_from_file(path, gguf_init_params(no_alloc: true, ctx: nil)) else { return }
        defer { gguf_free(gguf) }
        let architecture = gguf_find_key(gguf, "general.architecture")
        guard architecture >= 0, gguf_get_kv_type(gguf, architecture) == GGUF_TYPE_STRING,
              let name = gguf_get_val_str(gguf, architecture) else { return }
        let key = gguf_find_key(gguf, "\(String(cString: name)).block_count")
        guard key >= 0 else { return }
        let layers: Int64
        switch gguf_get_kv_type(gguf, key) {
        case GGUF_TYPE_UINT32: layers = Int64(gguf_get_val_u32(gguf, key))
        case GGUF_TYPE_INT32: layers = Int64(gguf_get_val_i32(gguf, key))
        case GGUF_TYPE_UINT64: layers = Int64(truncatingIfNeeded: gguf_get_val_u64(gguf, key))
        case GGUF_TYPE_INT64: layers = gguf_get_val_i64(gguf, key)
        default: return
        }
        guard (1...Int64(maxLayers)).contains(layers) else {
            throw LooplError(.invalidModel, "\(path) is corrupt: it declares \(layers) layers (block_count), and llama.cpp loads 1 to \(maxLayers). Download the model again.")
        }
    }

    /// The context length the model was trained with.
    public var trainingContextLength: Int { Int(llama_model_n_ctx_train(pointer)) }

    /// The sliding window of its windowed attention layers, in tokens; 0 when every layer sees
    /// the whole context.
    public var slidingWindow: Int { Int(llama_model_n_swa(pointer)) }

    /// A short description from llama.cpp, e.g. "llama ?B Q4_1".
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = llama_model_desc(pointer, &buffer, buffer.count)
        return String(decoding: buffer.prefix(Int(max(0, min(length, 255)))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The weights' size in bytes.
    public var size: UInt64 { llama_model_size(pointer) }

    /// The number of parameters.
    public var parameterCount: UInt64 { llama_model_n_params(pointer) }

    /// The model's own chat template (`tokenizer.chat_template`), if it has one.
    public var chatTemplate: String? { llama_model_chat_template(pointer, nil).map { String(cString: $0) } }

    /// A metadata value as text, e.g. `general.name`.
    public func metadata(_ key: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        var length = llama_model_meta_val_str(pointer, key, &buffer, buffer.count)
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(length) + 1)
            length = llama_model_meta_val_str(pointer, key, &buffer, buffer.count)
        }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the tokenizer adds a BOS token by itself.
    public var addsBOS: Bool { llama_vocab_get_add_bos(vocab) }

    /// Tokens for `text`, with special tokens (`<|im_start|>` ...) parsed unless `parseSpecial` is false.
    public func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool = true) -> [Int32] {
        let utf8 = Array(text.utf8CString.dropLast())
        var tokens = [llama_token](repeating: 0, count: utf8.count + 8)
        var count = llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial)
        if count < 0 {
            tokens = [llama_token](repeating: 0, count: Int(-count))
            count = llama_tokenize(vocab, utf8, Int32(utf8.count), &tokens, Int32(tokens.count), addSpecial, parseSpecial)
        }
        return Array(tokens.prefix(Int(max(count, 0))))
    }

    /// The bytes a token stands for (special tokens rendered), which may be part of a UTF-8 character.
    public func piece(_ token: Int32) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 64)
        var count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, true)
        if count < 0 {
            buffer = [CChar](repeating: 0, count: Int(-count))
            count = llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, true)
        }
        return buffer.prefix(Int(max(count, 0))).map { UInt8(bitPattern: $0) }
    }

    /// Every token that ends a generation.
    let endOfGenerationTokens: [llama_token]

    /// Makes `logits` (one for each token of the vocabulary) pick no token that ends a generation.
    func excludeEndOfGeneration(from logits: UnsafeMutablePointer<Float>) {
        for token in endOfGenerationTokens { logits[Int(token)] = -.infinity }
    }

    /// Whether `token` ends a generation (EOS, EOT, ...).
    public func isEndOfGeneration(_ token: Int32) -> Bool { llama_vocab_is_eog(vocab, token) }
}

private final class ProgressBox: @unchecked Sendable {
    let report: @Sendable (Double) -> Void
    init(_ report: @escaping @Sendable (Double) -> Void) { self.report = report }
}
