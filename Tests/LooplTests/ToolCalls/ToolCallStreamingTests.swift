import Loopl
import Testing

@Suite struct ToolCallStreamingTests {
    @Test func textIsReleasedAtOnceAndMarkersAreHeld() {
        var parser = ToolCallParser(format: .hermes, startsInReasoning: false)
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
        var parser = ToolCallParser(format: .hermes, startsInReasoning: false)
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
        var parser = ToolCallParser(format: .hermes, startsInReasoning: false)
        #expect(parser.feed("<tool_call>{\"name\": \"f\", \"arguments\": {}}") == [])
        let events = parser.finish()
        #expect(events.count == 1)
        if case .toolCall(let call)? = events.first { #expect(call.name == "f") } else { Issue.record("\(events)") }
        // The parser is ready for a new turn.
        #expect(parser.feed("plain") == [.text("plain")])
    }

    /// When the prompt may have opened thinking, the start of the turn waits for a bare closing
    /// marker, an opening one or the end; thinking and calls after that stream as usual.
    @Test func startOfTurnIsHeldUntilDecided() {
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("I'm thinking") == [])
        #expect(parser.feed(" hard</th") == [])
        #expect(parser.feed("ink>Hello") == [.reasoning("I'm thinking hard"), .text("Hello")])
        #expect(parser.feed(" world") == [.text(" world")])

        parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("Hello") == [])
        #expect(parser.finish() == [.text("Hello")])

        parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("<think>a") == [.reasoning("a")])
        #expect(parser.feed("</think>b") == [.text("b")])

        parser = ToolCallParser(format: .deepSeekR1)
        #expect(parser.feed("Use <think> tags") == [.text("Use <think> tags")])
    }

    /// In thinking that has not been closed, text from a call on is held: a closing marker makes it
    /// thinking, the end of the turn makes it a call.
    @Test func callInUnclosedReasoningWaitsForTheEnd() {
        let call = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
        var parser = ToolCallParser(format: .hermes)
        #expect(parser.feed("<think>Plan. ") == [.reasoning("Plan. ")])
        #expect(parser.feed(call) == [])
        #expect(parser.feed(" more</think>") == [.reasoning(call + " more")])

        parser = ToolCallParser(format: .hermes)
        _ = parser.feed("<think>Plan. " + call + " after")
        let events = parser.finish()
        guard case .toolCall(let lifted)? = events.first else {
            Issue.record("expected a call, got \(events)")
            return
        }
        #expect(lifted.name == "f")
        #expect(events.dropFirst().first == .text(" after"))
    }

    @Test func harmonyBuiltinCallIsRejectedWithoutItsMarkup() {
        let result = ToolCallParser(format: .gptOSS, toolNames: ["f"]).parse(
            "<|channel|>commentary to=browser.search <|constrain|>json<|message|>{\"q\": \"x\"}<|call|>")
        #expect(result.content == "")
        #expect(result.toolCalls.isEmpty)
        #expect(result.rejected.map(\.name) == ["browser.search"])
        let declared = ToolCallParser(format: .gptOSS, toolNames: ["python"]).parse(
            "<|channel|>commentary to=python <|constrain|>code<|message|>print(1)<|call|>")
        #expect(declared.toolCalls.map(\.arguments) == [["code": "print(1)"]])
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

    /// Streams `text` to a parser of `format`, 4 characters a delta; the fastest of `runs`.
    static func stream(_ text: String, format: ToolCallFormat, runs: Int = 3) -> (time: Duration, result: ToolCallParser.Result) {
        let clock = ContinuousClock()
        var fastest = Duration.seconds(1_000_000)
        var events: [ToolCallParser.Event] = []
        for _ in 0..<runs {
            var parser = ToolCallParser(format: format)
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

    /// A call whose argument has `lines` lines.
    static func streamLongCall(lines: Int) -> (time: Duration, result: ToolCallParser.Result) {
        let code = String(repeating: "print('hello world')\n", count: lines)
        return stream("<tool_call>\n<function=python>\n<parameter=code>\n\(code)</parameter>\n</function>\n</tool_call>", format: .qwen3Coder)
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

    /// `lines` lines of plain text, with the start of the turn held (the prompt's state unknown).
    static func streamHeldText(lines: Int) -> (time: Duration, result: ToolCallParser.Result) {
        stream(String(repeating: "The quick brown fox jumps over the lazy dog.\n", count: lines), format: .auto)
    }

    /// A held turn start grows as one event without copying it on every delta.
    @Test func heldTextStreamsInLinearTime() {
        let small = Self.streamHeldText(lines: 2_000), large = Self.streamHeldText(lines: 8_000)
        let ratio = large.time / small.time
        #expect(ratio < 8, "4x the text took \(ratio)x the time (\(small.time) against \(large.time))")
        #expect(large.result.content.hasSuffix("lazy dog."))
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
