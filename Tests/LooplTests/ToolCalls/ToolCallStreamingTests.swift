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

    /// Streams a call whose argument has `lines` lines, 4 characters a delta; the fastest of `runs`.
    static func streamLongCall(lines: Int, runs: Int = 3) -> (time: Duration, result: ToolCallParser.Result) {
        let code = String(repeating: "print('hello world')\n", count: lines)
        let text = "<tool_call>\n<function=python>\n<parameter=code>\n\(code)</parameter>\n</function>\n</tool_call>"
        let clock = ContinuousClock()
        var fastest = Duration.seconds(1_000_000)
        var events: [ToolCallParser.Event] = []
        for _ in 0..<runs {
            var parser = ToolCallParser(format: .qwen3Coder)
            events = []
            let start = clock.now
            var rest = Substring(text)
            while !rest.isEmpty {
                events += parser.feed(String(rest.prefix(4)))
                rest = rest.dropFirst(4)
            }
            events += parser.finish()
            fastest = min(fastest, clock.now - start)
        }
        return (fastest, ToolCallParser.result(of: events))
    }

    /// Four times the text takes about four times as long (a parser that rescans what it holds
    /// would take sixteen); the bound leaves room for a loaded machine.
    @Test func longCallArgumentsStreamInLinearTime() {
        let small = Self.streamLongCall(lines: 1_500), large = Self.streamLongCall(lines: 6_000)
        let ratio = large.time / small.time
        #expect(ratio < 8, "4x the text took \(ratio)x the time (\(small.time) against \(large.time))")
        let code = String(repeating: "print('hello world')\n", count: 6_000)
        #expect(large.result.toolCalls.first?.arguments["code"] == .string(String(code.dropLast())))
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
