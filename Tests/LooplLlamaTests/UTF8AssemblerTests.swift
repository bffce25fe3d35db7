@testable import LooplLlama
import Testing

@Suite struct UTF8AssemblerTests {
    @Test(arguments: ["héllo", "日本語", "🎉 ok", "a\u{0301}", "plain"])
    func anySplitGivesWholeCharacters(_ text: String) {
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var assembler = UTF8Assembler()
            let first = assembler.append(Array(bytes[..<cut]))
            let second = assembler.append(Array(bytes[cut...]))
            #expect(!first.contains("\u{FFFD}") && !second.contains("\u{FFFD}"))
            #expect(first + second + assembler.flush() == text)
        }
    }

    @Test func byteAtATime() {
        var assembler = UTF8Assembler()
        var out = ""
        for byte in "a🎉é".utf8 { out += assembler.append([byte]) }
        #expect(out == "a🎉é")
        #expect(assembler.flush().isEmpty)
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        var assembler = UTF8Assembler()
        let text = assembler.append([0x61, 0xFF, 0x62]) + assembler.append([0xE6]) + assembler.flush()
        #expect(text == "a\u{FFFD}b\u{FFFD}")
    }
}
