import Loopl
import Testing

@Suite struct ToolCallStreamingTests {
    @Test func textIsReleasedAtOnceAndMarkersAreHeld() {
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("Hello wor") == [.text("Hello wor")])
        #expect(parser.feed("ld <tool") == [.text("ld ")])
        #expect(parser.feed("_call>{\"name\": \"f\", ") == [])
        let events = parser.feed("\"arguments\": {}}</tool_call>")
        #expect(events.count == 1)
        guard case .toolCall(let call)? = events.first else {
            Issue.record("expected a call, got \(events)")
            return
        }
        #expect(call.name == "f")
        #expect(parser.feed(" bye") == [.text(" bye")])
        #expect(parser.finish() == [])
    }

    @Test func halfMarkerIsReleasedWhenItTurnsOutToBeText() {
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("a <tool_ca") == [.text("a ")])
        #expect(parser.feed("r is red") == [.text("<tool_car is red")])
    }

    @Test func reasoningStreamsAsItComes() {
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("<think>I wonder") == [.reasoning("I wonder")])
        #expect(parser.feed(" if</thi") == [.reasoning(" if")])
        #expect(parser.feed("nk>Yes") == [.text("Yes")])
    }

    @Test func unfinishedCallIsDecidedAtTheEnd() {
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("<tool_call>{\"name\": \"f\", \"arguments\": {}}") == [])
        let events = parser.finish()
        #expect(events.count == 1)
        if case .toolCall(let call)? = events.first { #expect(call.name == "f") } else { Issue.record("\(events)") }
        // The parser is ready for a new turn.
        #expect(parser.feed("plain") == [.text("plain")])
    }

    @Test func rejectedCallKeepsItsText() {
        var parser = ToolCallParser(format: .hermes, toolNames: ["ls"])
        let text = "<tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call>"
        let events = parser.feed(text) + parser.finish()
        #expect(events.first == .text(text))
        guard case .rejected(let rejected)? = events.last else {
            Issue.record("expected a rejected call, got \(events)")
            return
        }
        #expect(rejected.name == "rm")
        #expect(rejected.reason.contains("not a declared tool"))
    }

    @Test func longCallArgumentsStreamInLinearTime() {
        let code = String(repeating: "print('hello world')\n", count: 5_000)
        let text = "<tool_call>\n<function=python>\n<parameter=code>\n\(code)</parameter>\n</function>\n</tool_call>"
        var parser = ToolCallParser(format: .qwen3Coder)
        var events: [ToolCallParser.Event] = []
        let clock = ContinuousClock()
        let start = clock.now
        var rest = Substring(text)
        while !rest.isEmpty {
            events += parser.feed(String(rest.prefix(4)))
            rest = rest.dropFirst(4)
        }
        events += parser.finish()
        #expect(clock.now - start < .seconds(20))
        let result = ToolCallParser.result(of: events)
        #expect(result.toolCalls.first?.arguments["code"] == .string(String(code.dropLast())))
    }

    @Test func resultJSONForTheCLI() {
        let result = ToolCallParser(toolNames: ["f"]).parse(
            "<think>hm</think>Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>")
        #expect(result.jsonValue == [
            "content": "Hi <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
            "tool_calls": [["name": "f", "arguments": ["a": 1]]],
            "reasoning": "hm",
            "rejected": [["name": "g", "arguments": [:], "reason": "'g' is not a declared tool"]],
        ])
        #expect(ToolCallParser().parse("plain").jsonValue == ["content": "plain", "tool_calls": []])
    }
}
