import Foundation
@testable import LooplAPI
import Loopl
import Testing

/// The embeddings bodies of OpenAI's and Ollama's shapes: what is read, and each refusal naming its field.
struct EmbeddingsRequestTests {
    static func openAI(_ text: String) throws(APIError) -> EmbeddingsRequest { try EmbeddingsRequest(openAI: Array(text.utf8)) }
    static func ollama(_ text: String, legacy: Bool = false) throws(APIError) -> EmbeddingsRequest {
        try EmbeddingsRequest(ollama: Array(text.utf8), legacy: legacy)
    }

    static func refusal(_ read: () throws -> EmbeddingsRequest) -> APIError? {
        do { _ = try read(); return nil } catch { return error as? APIError }
    }

    @Test func openAIReadsAStringOrAListAndItsFormat() throws {
        let one = try Self.openAI(#"{"model": "m", "input": "hi"}"#)
        #expect(one.inputs == ["hi"] && one.model == "m" && !one.base64 && !one.truncate && one.dimensions == nil)
        let many = try Self.openAI(#"{"input": ["a", "b"], "encoding_format": "base64", "dimensions": 576}"#)
        #expect(many.inputs == ["a", "b"] && many.base64 && many.dimensions == 576 && many.model == nil)
    }

    @Test func openAIRefusesTokensAnEmptyListAndAnUnknownFormat() {
        #expect(Self.refusal { try Self.openAI(#"{"input": [[1, 2]]}"#) }?.param == "input[0]")
        #expect(Self.refusal { try Self.openAI(#"{"input": []}"#) }?.param == "input")
        #expect(Self.refusal { try Self.openAI(#"{"model": "m"}"#) }?.param == "input")
        #expect(Self.refusal { try Self.openAI(#"{"input": "a", "encoding_format": "int8"}"#) }?.param == "encoding_format")
        #expect(Self.refusal { try Self.openAI(#"{"input": "a", "dimensions": 0}"#) }?.param == "dimensions")
    }

    @Test func ollamaTruncatesByDefaultAndNeedsAModel() throws {
        let body = try Self.ollama(#"{"model": "m", "input": ["a", "b"]}"#)
        #expect(body.inputs == ["a", "b"] && body.truncate)
        #expect(try !Self.ollama(#"{"model": "m", "input": "a", "truncate": false}"#).truncate)
        #expect(try Self.ollama(#"{"model": "m", "prompt": "a"}"#, legacy: true).inputs == ["a"])
        #expect(Self.refusal { try Self.ollama(#"{"input": "a"}"#) }?.message == "model is required")
        #expect(Self.refusal { try Self.ollama(#"{"model": "m", "input": "a"}"#, legacy: true) }?.param == "prompt")
    }

    /// base64 is the little-endian float32s, as OpenAI's SDK decodes them.
    @Test func base64IsLittleEndianFloat32() throws {
        let text = EmbeddingsEndpoint.base64([1, -2.5])
        let bytes = try #require(Data(base64Encoded: text))
        #expect(Array(bytes) == [0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0])
    }
}
