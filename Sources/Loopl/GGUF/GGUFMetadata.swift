import Foundation

/// The header and key/value metadata of a GGUF model file, read without loading tensors or libllama:
/// chat templates, special tokens, architecture and context length.
public struct GGUFMetadata: Sendable {
    /// The format version (2 or 3).
    public let version: UInt32
    /// How many tensors the file holds (they are not read).
    public let tensorCount: UInt64
    /// The metadata keys in file order.
    public let keys: [String]
    private let values: [String: GGUFValue]

    /// Reads the metadata of the file at `path`. Throws a ``LooplError``: `modelNotFound` when the file
    /// cannot be opened, `invalidModel` when it is a directory or not GGUF, is truncated or is corrupt.
    public init(contentsOf path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw LooplError(.invalidModel, "\(path) is a directory, not a GGUF model file: give the path of the .gguf file.")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw LooplError(.modelNotFound, "Cannot open the model file \(path): check the path and its permissions.")
        }
        try self.init(data: data, name: path)
    }

    /// Reads metadata from the bytes of a GGUF file; `name` is how errors refer to it. Metadata
    /// that would take more than 256 MiB of memory is refused as `invalidModel`.
    public init(data: Data, name: String = "the model file") throws {
        try self.init(data: data, name: name, budget: GGUFReader.defaultBudget)
    }

    /// Reads metadata with `budget` bytes of memory for its values.
    package init(data: Data, name: String, budget: Int) throws {
        var reader = GGUFReader(data: data, name: name, budget: budget)
        let header = try reader.read()
        (version, tensorCount, keys, values) = (header.version, header.tensorCount, header.keys, header.values)
    }

    /// The value stored under `key`.
    package subscript(key: String) -> GGUFValue? { values[key] }

    /// `general.architecture`, e.g. "llama".
    public var architecture: String? { values["general.architecture"]?.stringValue }
    /// `general.name`.
    public var name: String? { values["general.name"]?.stringValue }
    /// `general.description`.
    public var modelDescription: String? { values["general.description"]?.stringValue }
    /// `<architecture>.context_length`: the context the model was trained for.
    public var contextLength: Int? { architecture.flatMap { values["\($0).context_length"]?.intValue } }

    /// `tokenizer.chat_template`: the default chat template.
    public var chatTemplate: String? { values["tokenizer.chat_template"]?.stringValue }

    /// Names of the other templates (`tokenizer.chat_template.<name>`), in file order.
    public var chatTemplateNames: [String] {
        let prefix = "tokenizer.chat_template."
        return keys.filter { $0.hasPrefix(prefix) && values[$0]?.stringValue != nil }.map { String($0.dropFirst(prefix.count)) }
    }

    /// The template named `name`; "default" is ``chatTemplate``.
    public func chatTemplate(named name: String) -> String? {
        if name == "default", let chatTemplate { return chatTemplate }
        return values["tokenizer.chat_template.\(name)"]?.stringValue
    }

    package var bosTokenID: Int? { values["tokenizer.ggml.bos_token_id"]?.intValue }
    package var eosTokenID: Int? { values["tokenizer.ggml.eos_token_id"]?.intValue }
    /// The text of the beginning-of-sequence token, as templates' `bos_token` is.
    public var bosToken: String? { bosTokenID.flatMap(tokenText) }
    /// The text of the end-of-sequence token, as templates' `eos_token` is.
    public var eosToken: String? { eosTokenID.flatMap(tokenText) }

    /// The text of vocabulary entry `id`.
    package func tokenText(_ id: Int) -> String? {
        guard let tokens = values["tokenizer.ggml.tokens"]?.arrayValue, id >= 0, id < tokens.count else { return nil }
        return tokens[id].stringValue
    }

    /// Everything, for `loopl inspect --json`: version, tensor count, the summary fields, and every key with
    /// its type and value (arrays cut to `arrayLimit` elements, with their full `count`).
    public func jsonValue(arrayLimit: Int? = 16) -> JSONValue {
        var metadata = JSONObject()
        for key in keys {
            guard let value = values[key] else { continue }
            var entry: JSONObject = ["type": .string(value.typeName), "value": value.jsonValue(arrayLimit: arrayLimit)]
            if case .array(let elementType, let elements) = value {
                entry["element_type"] = .string(GGUFValue.typeName(code: elementType))
                entry["count"] = .integer(elements.count)
            }
            metadata[key] = .object(entry)
        }
        var named = JSONObject()
        for name in chatTemplateNames { named[name] = chatTemplate(named: name).map { .string($0) } ?? .null }
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return [
            "version": .integer(Int(version)),
            "tensor_count": Int(exactly: tensorCount).map { .integer($0) } ?? .double(Double(tensorCount)),
            "architecture": optional(architecture),
            "name": optional(name),
            "description": optional(modelDescription),
            "context_length": contextLength.map { .integer($0) } ?? .null,
            "bos_token": optional(bosToken),
            "eos_token": optional(eosToken),
            "chat_template": optional(chatTemplate),
            "chat_templates": .object(named),
            "metadata": .object(metadata),
        ]
    }
}
