@testable import LooplLlama
import Testing

/// `llama_decode`'s return codes, as llama.h gives them.
@Suite struct DecodeStatusTests {
    @Test func theCodesOfLlamaHAreNamed() {
        #expect(DecodeStatus(0) == .ok)
        #expect(DecodeStatus(1) == .noSlot)
        #expect(DecodeStatus(2) == .aborted)
        #expect(DecodeStatus(-1) == .invalidBatch)
        #expect(DecodeStatus(-2) == .failed(-2))
        #expect(DecodeStatus(3) == .failed(3))
    }
}
