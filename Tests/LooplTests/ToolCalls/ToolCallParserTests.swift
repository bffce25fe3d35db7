import Loopl
import Testing

@Suite struct ToolCallParserTests {
    @Test(arguments: ToolCallCases.all)
    func caseTable(_ row: ParseCase) {
        row.check(row.parser().parse(row.text), under: row.format)
        if row.sameUnderAuto {
            row.check(row.parser(.auto).parse(row.text), under: .auto)
        }
    }

    /// Whole text, one scalar at a time, and random splits give the same events and result.
    @Test(arguments: ToolCallCases.all)
    func splitEquivalence(_ row: ParseCase) {
        var formats = [row.format]
        if row.sameUnderAuto { formats.append(.auto) }
        for format in formats {
            let whole = row.parser(format).parse(row.text).withoutIds
            let scalars = row.text.unicodeScalars.map { String($0) }
            var rng = SeededGenerator(seed: UInt64(row.text.utf8.count) &+ 0x9E37_79B9_7F4A_7C15)
            var splits: [[String]] = [scalars]
            // Every cut into two pieces.
            for cut in 1..<max(1, scalars.count) {
                splits.append([scalars[..<cut].joined(), scalars[cut...].joined()])
            }
            for _ in 0..<8 { splits.append(randomSplit(row.text, using: &rng)) }
            for pieces in splits {
                var parser = row.parser(format)
                var events: [ToolCallParser.Event] = []
                for piece in pieces { events += parser.feed(piece) }
                events += parser.finish()
                let streamed = ToolCallParser.result(of: events).withoutIds
                #expect(streamed == whole, "\(row.name) [\(format)] split \(pieces.count)")
            }
        }
    }
}

@Suite struct ToolCallParserOptionTests {
    @Test func declaredStringParametersKeepTheirText() {
        let tools = [ToolSpec(name: "f", description: "", parameters: [
            "type": "object", "properties": ["zip": ["type": "string"], "n": ["type": "integer"]],
        ])]
        let text = "<tool_call>\n<function=f>\n<parameter=zip>\n12345\n</parameter>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
        #expect(ToolCallParser(format: .qwen3Coder, tools: tools).parse(text).toolCalls.first?.arguments == ["zip": "12345", "n": 7])
        #expect(ToolCallParser(format: .qwen3Coder).parse(text).toolCalls.first?.arguments == ["zip": 12345, "n": 7])
        let undeclared = ToolCallParser(format: .qwen3Coder, tools: []).parse(text)
        #expect(undeclared.toolCalls.isEmpty)
        #expect(undeclared.rejected.map(\.name) == ["f"])
    }

    @Test func fencesAroundATaggedCallAreDropped() {
        let result = ToolCallParser(format: .hermes).parse("```json\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n```")
        #expect(result.toolCalls.map(\.name) == ["f"])
        #expect(result.content == "")
        #expect(ToolCallParser().parse("```swift\nlet x = 1\n```").content == "```swift\nlet x = 1\n```")
    }

    @Test func promptThatOpensReasoning() {
        #expect(ToolCallParser.promptOpensReasoning("<|im_start|>assistant\n<think>\n"))
        #expect(!ToolCallParser.promptOpensReasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(!ToolCallParser.promptOpensReasoning("<|im_start|>assistant\n"))
    }

    @Test func formatInferredFromTemplateSnippets() {
        #expect(ToolCallFormat(inferringFromTemplate: "{{ '<tool_call>\\n' + tool_call | tojson + '\\n</tool_call>' }}") == .hermes)
        #expect(ToolCallFormat(inferringFromTemplate: "<function=' + name + '>\\n<parameter=' + k") == .qwen3Coder)
        #expect(ToolCallFormat(inferringFromTemplate: "{{ '[TOOL_CALLS]' + name + '[ARGS]' }}") == .mistral)
        #expect(ToolCallFormat(inferringFromTemplate: "{{ messages[0].content }}") == .auto)
        #expect(ToolCallFormat.allCases.count == Set(ToolCallFormat.allCases).count)
    }
}

/// Splits text at random scalar boundaries.
func randomSplit(_ text: String, using rng: inout SeededGenerator) -> [String] {
    let scalars = Array(text.unicodeScalars)
    var pieces: [String] = []
    var i = 0
    while i < scalars.count {
        let n = Int(rng.next() % 7) + 1
        let end = min(scalars.count, i + n)
        var piece = ""
        piece.unicodeScalars.append(contentsOf: scalars[i..<end])
        pieces.append(piece)
        i = end
    }
    return pieces
}

