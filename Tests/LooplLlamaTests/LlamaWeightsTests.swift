import CLlama
import Foundation
import Loopl
@testable import LooplLlama
import LooplTestKit
import Synchronization
import Testing

@Suite(.serialized) struct LlamaWeightsTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loopl-\(UUID()).gguf").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func code(_ body: () throws -> Void) -> LooplError.Code? {
        do { try body(); return nil } catch let error as LooplError { return error.code } catch { return nil }
    }

    @Test func missingFile() {
        #expect(Self.code { _ = try LlamaWeights(path: "/nonexistent/x.gguf") } == .modelNotFound)
    }

    @Test func directoryAndWrongMagic() throws {
        #expect(Self.code { _ = try LlamaWeights(path: FileManager.default.temporaryDirectory.path) } == .invalidModel)
        let text = try Self.temporaryFile(Array("not a model at all".utf8))
        defer { try? FileManager.default.removeItem(atPath: text) }
        #expect(Self.code { _ = try LlamaWeights(path: text) } == .invalidModel)
    }

    /// A GGUF cut short is refused with a typed error; llama.cpp reports it, nothing aborts.
    @Test(.timeLimit(.minutes(2)), arguments: [8, 4096, 1 << 20])
    func truncatedModel(_ length: Int) throws {
        let model = try Data(contentsOf: URL(fileURLWithPath: LooplHome.defaultModel))
        let path = try Self.temporaryFile(Array(model.prefix(length)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(Self.code { _ = try LlamaWeights(path: path) } == .invalidModel)
    }

    /// A GGUF damaged in place (metadata values, tensor descriptions) is refused with a typed
    /// error. `layers1000` made llama.cpp's loader abort the process before LlamaWeights checked it.
    @Test(.timeLimit(.minutes(2)), arguments: GGUFCorruption.allCases)
    func corruptModel(_ corruption: GGUFCorruption) throws {
        let model = try Data(contentsOf: URL(fileURLWithPath: LooplHome.defaultModel), options: .alwaysMapped)
        let bytes = try #require(corruption.apply(to: model))
        let path = try Self.temporaryFile(Array(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var message = ""
        do { _ = try LlamaWeights(path: path) } catch let error as LooplError {
            #expect(error.code == .invalidModel)
            message = error.message
        }
        #expect(message.contains(path), "no typed error: \(message)")
        if corruption == .layers1000 { #expect(message.contains("1000 layers")) }
    }

    @Test(.timeLimit(.minutes(2)))
    func loadProgressIsReported() throws {
        let seen = Mutex<[Double]>([])
        _ = try LlamaWeights(path: LooplHome.defaultModel) { value in seen.withLock { $0.append(value) } }
        let values = seen.withLock { $0 }
        #expect(!values.isEmpty)
        #expect(values.last == 1.0)
        #expect(values == values.sorted())
    }

    /// A request that ignores the end of generation never picks a token that ends one, even the
    /// likeliest (as llama-server's `ignore_eos`): such a token writes nothing and would stall the text.
    @Test(.timeLimit(.minutes(2)))
    func endOfGenerationTokensCanBeExcluded() throws {
        let weights = try LlamaWeights(path: LooplHome.defaultModel)
        let end = try #require(weights.tokenize("<|im_end|>", addSpecial: false).first)
        #expect(weights.isEndOfGeneration(end) && weights.endOfGenerationTokens.contains(end))
        var logits = [Float](repeating: 0, count: Int(llama_vocab_n_tokens(weights.vocab)))
        logits[Int(end)] = 10
        logits.withUnsafeMutableBufferPointer { weights.excludeEndOfGeneration(from: $0.baseAddress!) }
        #expect(logits[Int(end)] == -.infinity)
        #expect(!weights.isEndOfGeneration(LlamaSampler.argmax(logits, count: logits.count)))
        #expect(weights.endOfGenerationTokens.allSatisfy { logits[Int($0)] == -.infinity })
    }

    @Test(.timeLimit(.minutes(2)))
    func defaultModelMetadata() throws {
        let weights = try LlamaWeights(path: LooplHome.defaultModel)
        #expect(weights.trainingContextLength == 8192)
        #expect(weights.metadata("general.architecture") == "llama")
        #expect(weights.chatTemplate?.contains("<|im_start|>") == true)
        #expect(weights.metadata("no.such.key") == nil)
        #expect(weights.description.hasPrefix("llama"))
        #expect(weights.size > 50_000_000 && weights.size < 200_000_000)
        #expect(weights.parameterCount > 100_000_000 && weights.parameterCount < 200_000_000)
        let tokens = weights.tokenize("<|im_start|>user\nhé", addSpecial: false)
        #expect(tokens.count >= 3)
        let text = String(decoding: tokens.flatMap(weights.piece), as: UTF8.self)
        #expect(text == "<|im_start|>user\nhé")
    }
}
