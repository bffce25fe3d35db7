import Testing
@testable import Loopl

/// A turn that ends inside a call gives neither the call nor its markup, streamed or whole.
@Suite struct CutCallTests {
    static let add = ToolSpec(name: "add", description: "Add.", parameters: ["type": "object"])
    static let cuts = [
        "<tool_call>\n{\"name\":\"add\",\"argu",
        "<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":",
        "<tool_call>\n{",
    ]

    @Test(arguments: cuts)
    func aCutCallLeavesNoMarkupInTheContent(_ cut: String) {
        for chunked in [false, true] {
            var parser = ToolCallParser(format: .hermes, tools: [Self.add])
            var events: [ToolCallParser.Event] = []
            let pieces = chunked ? ["Sure.\n"] + cut.map(String.init) : ["Sure.\n" + cut]
            for piece in pieces { events += parser.feed(piece) }
            events += parser.finish()
            let result = ToolCallParser.result(of: events)
            #expect(result.content == "Sure.", "\(cut.debugDescription), chunked \(chunked)")
            #expect(result.toolCalls.isEmpty)
        }
    }

    @Test func aCompleteCallMissingOnlyItsCloseIsStillACall() {
        var parser = ToolCallParser(format: .hermes, tools: [Self.add])
        let events = parser.feed("<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":2}}") + parser.finish()
        let result = ToolCallParser.result(of: events)
        #expect(result.toolCalls.map(\.name) == ["add"])
        #expect(result.content.isEmpty)
    }
}
