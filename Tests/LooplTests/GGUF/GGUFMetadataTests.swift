import Foundation
import Loopl
import LooplTestKit
import Testing

/// Compares the Swift reader with what the Python `gguf` package reads (scripts/gguf-oracle).
@Suite struct GGUFMetadataTests {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Data/GGUF")
    static let fixture = data.appendingPathComponent("tiny.gguf").path
    /// The default model, where the bootstrap put it (`LOOPL_HOME`, or `LOOPL_MODEL` for the file).
    static let model = LooplHome.defaultModel

    static func expectMatchesOracle(_ path: String, _ oraclePath: String) throws {
        let metadata = try GGUFMetadata(contentsOf: path)
        let oracle = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: oraclePath)))
        #expect(Int(metadata.version) == oracle["version"]?.intValue)
        #expect(Int(metadata.tensorCount) == oracle["tensor_count"]?.intValue)
        #expect(metadata.keys.count == oracle["kv_count"]?.intValue)
        let fields = try #require(oracle["fields"]?.arrayValue)
        #expect(metadata.keys == fields.compactMap { $0["key"]?.stringValue })
        for field in fields {
            let key = try #require(field["key"]?.stringValue)
            let value = try #require(metadata[key], "missing \(key)")
            #expect(value.typeName == field["type"]?.stringValue, "\(key)")
            if let expected = field["value"] {
                #expect(same(value.jsonValue(), expected), "\(key): \(value.jsonValue()) != \(expected)")
            } else {
                let elements = try #require(value.arrayValue, "\(key) is not an array")
                #expect(elements.count == field["count"]?.intValue, "\(key)")
                if let all = field["values"]?.arrayValue {
                    #expect(same(value.jsonValue(), .array(all)), "\(key)")
                } else {
                    let head = try #require(field["head"]?.arrayValue)
                    #expect(same(value.jsonValue(arrayLimit: head.count), .array(head)), "\(key)")
                    if let last = field["last"], let mine = elements.last { #expect(same(mine.jsonValue(), last), "\(key)") }
                }
                if case .array(let type, _) = value, let elementType = field["element_type"]?.stringValue {
                    #expect(GGUFValue.array(elementType: type, []).typeName == "ARRAY")
                    #expect(elements.first.map(\.typeName) ?? elementType == elementType, "\(key)")
                }
            }
        }
    }

    /// Equal JSON, with numbers compared as doubles (the oracle's UInt64 beyond Int parses as a double).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default:
            if let x = a.doubleValue, let y = b.doubleValue, a.boolValue == nil, b.boolValue == nil { return x == y }
            return a == b
        }
    }

    @Test func fixtureMatchesPythonGGUF() throws {
        try Self.expectMatchesOracle(Self.fixture, Self.data.appendingPathComponent("tiny.expected.json").path)
    }

    @Test func fixtureSummary() throws {
        let metadata = try GGUFMetadata(contentsOf: Self.fixture)
        #expect(metadata.architecture == "llama")
        #expect(metadata.name == "Tiny Test Model")
        #expect(metadata.modelDescription?.contains("世界") == true)
        #expect(metadata.contextLength == 4096)
        #expect(metadata.bosToken == "<s>")
        #expect(metadata.eosToken == "<|im_end|>")
        #expect(metadata.chatTemplate?.hasPrefix("{% for m in messages %}") == true)
        #expect(metadata.chatTemplateNames == ["tool_use"])
        #expect(metadata.chatTemplate(named: "tool_use") == "{{ tools | tojson }}")
        #expect(metadata.chatTemplate(named: "missing") == nil)
        let json = metadata.jsonValue(arrayLimit: 2)
        #expect(json["context_length"] == 4096)
        #expect(json["chat_templates"]?["tool_use"] == "{{ tools | tojson }}")
        #expect(json["metadata"]?["tokenizer.ggml.tokens"]?["count"] == 7)
        #expect(json["metadata"]?["tokenizer.ggml.tokens"]?["value"] == ["<unk>", "<s>"])
        #expect(json["metadata"]?["test.u8"]?["type"] == "UINT8")
    }

    @Test func templatesFromTheModel() throws {
        let metadata = try GGUFMetadata(contentsOf: Self.fixture)
        let template = try ChatTemplate(model: metadata)
        #expect(try template.render(messages: [.user("Hi")]) == "<|im_start|>user\nHi<|im_end|>\n")
        let tools = try ChatTemplate(model: metadata, named: "tool_use")
        #expect(try tools.render(messages: [], tools: [ToolSpec(name: "f", description: "")]).hasPrefix(#"[{"type": "function""#))
        #expect(throws: LooplError(.templateError, "The model has no chat template named 'rag'; it has: default, tool_use.")) {
            try ChatTemplate(model: metadata, named: "rag")
        }
    }

    @Test func defaultModelMatchesPythonGGUF() throws {
        try #require(FileManager.default.fileExists(atPath: Self.model), "no model at \(Self.model): run scripts/bootstrap, or set LOOPL_MODEL")
        try Self.expectMatchesOracle(Self.model, Self.data.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.expected.json").path)
        let metadata = try GGUFMetadata(contentsOf: Self.model)
        #expect(metadata.architecture == "llama")
        #expect(metadata.contextLength == 8192)
        #expect(metadata.bosToken == "<|im_start|>")
        #expect(metadata.eosToken == "<|im_end|>")
        let template = try ChatTemplate(source: try #require(metadata.chatTemplate))
        let prompt = try template.render(messages: [.user("Hi")], bosToken: metadata.bosToken ?? "", eosToken: metadata.eosToken ?? "")
        #expect(prompt == "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test func everyTruncationIsAnInvalidModelError() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        let metadataEnd = 1100  // the key/value section ends before the tensor data
        for length in 0..<min(bytes.count, metadataEnd) {
            do {
                _ = try GGUFMetadata(data: bytes.prefix(length), name: "cut.gguf")
                // Only a cut after the last key may parse; then every key is there.
                let full = try GGUFMetadata(data: bytes)
                let cut = try GGUFMetadata(data: bytes.prefix(length))
                #expect(cut.keys == full.keys, "cut at \(length) parsed with missing keys")
            } catch let error as LooplError {
                #expect(error.code == .invalidModel, "cut at \(length): \(error)")
                #expect(error.message.contains("cut.gguf"))
            }
        }
        #expect(throws: LooplError.self) { try GGUFMetadata(data: bytes.prefix(200)) }
    }

    @Test func corruptFilesAreInvalidModelErrors() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        func expectInvalid(_ data: Data, _ fragment: String) {
            do {
                _ = try GGUFMetadata(data: data, name: "bad.gguf")
                Issue.record("parsed corrupt data: expected \(fragment)")
            } catch let error as LooplError {
                #expect(error.code == .invalidModel)
                #expect(error.message.contains(fragment), "\(error.message)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        var magic = bytes
        magic[0] = UInt8(ascii: "X")
        expectInvalid(magic, "not a GGUF model")
        var version = bytes
        version[4] = 9
        expectInvalid(version, "version 9")
        var bigEndian = bytes
        (bigEndian[4], bigEndian[7]) = (0, 3)
        expectInvalid(bigEndian, "big-endian")
        // The first key's length says 2^62 bytes.
        var hugeKey = bytes
        hugeKey[24 + 7] = 0x40
        expectInvalid(hugeKey, "truncated")
        // The first value's type code becomes 99.
        let firstKeyLength = Int(bytes[24])
        var badType = bytes
        badType[24 + 8 + firstKeyLength] = 99
        expectInvalid(badType, "unknown value type 99")
        // A key count larger than the file can hold.
        var manyKeys = bytes
        manyKeys[16 + 6] = 0x7F
        expectInvalid(manyKeys, "truncated")
        expectInvalid(Data("GG".utf8), "only 2 bytes")
    }

    /// A 12 MB file of one-byte array elements would take about 290 MB as values: it is refused
    /// before they are allocated.
    @Test func arraysThatAmplifyAreRefused() throws {
        let bomb = GGUFCorruption.amplifyingArray(count: 12_000_000)
        #expect {
            _ = try GGUFMetadata(data: bomb, name: "bomb.gguf")
        } throws: { error in
            let error = error as? LooplError
            return error?.code == .invalidModel && error?.message.contains("bomb.gguf's metadata would take more than 256 MiB of memory") == true
        }
        // The budget counts every element: within it the array is read, past it refused.
        let small = GGUFCorruption.amplifyingArray(count: 10_000)
        #expect(try GGUFMetadata(data: small, name: "small.gguf", budget: 1 << 20)["general.bomb"]?.arrayValue?.count == 10_000)
        #expect(throws: LooplError.self) { try GGUFMetadata(data: GGUFCorruption.amplifyingArray(count: 100_000), name: "b.gguf", budget: 1 << 20) }
    }

    @Test func missingFileIsModelNotFound() {
        #expect(throws: LooplError(.modelNotFound, "Cannot open the model file /nonexistent/x.gguf: check the path and its permissions.")) {
            try GGUFMetadata(contentsOf: "/nonexistent/x.gguf")
        }
    }

    @Test func aDirectoryIsAnInvalidModel() {
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: LooplError(.invalidModel, "\(directory) is a directory, not a GGUF model file: give the path of the .gguf file.")) {
            try GGUFMetadata(contentsOf: directory)
        }
    }
}
