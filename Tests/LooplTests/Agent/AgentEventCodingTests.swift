import Foundation
import Loopl
import Testing

/// AgentEvent's Codable form is the `loopl run --json` stream (docs/events.md): one
/// `{"event": NAME, ...}` object per event, decoding back to the same event.
@Suite struct AgentEventCodingTests {
    static let call = ToolCall(id: "call_1", name: "calc", arguments: ["expression": "2+2", "n": 1, "x": 1.0, "deep": ["a": [true, .null]]])

    /// One event of each case (and each optional shape), in the order of ``golden``.
    static let events: [AgentEvent] = [
        .iterationStarted(1),
        .text("H\u{e9} \"quoted\"\n\ttab"),
        .metrics(Metrics(promptTokens: 20, cachedPromptTokens: 4, generatedTokens: 9, ttftMs: 41.5, promptEvalMs: 38.0,
                         tokensPerSecond: 80.25, contextUsed: 29, contextMax: 4096, finished: true, stopReason: .endTurn)),
        .metrics(Metrics(generatedTokens: 2, estimated: true)),
        .assistantMessage(.assistant(text: "", toolCalls: [call])),
        .assistantMessage(.assistant("Four.")),
        .toolStarted(call),
        .toolFinished(ToolResult(callId: "call_1", name: "calc", isError: false, durationMs: 3.0, content: "4")),
        .toolFinished(ToolResult(callId: "call_2", name: "nope", isError: true, durationMs: 0.125, content: "Unknown tool 'nope'.")),
        .warning("The model repeated a call."),
        .retrying(iteration: 2, reason: "The worker exited with status 9 mid-stream."),
        .finished(iterations: 2, reason: .answered),
        .finished(iterations: 1, reason: .budget),
        .finished(iterations: 3, reason: .cancelled),
        // Thinking: new kinds and keys, which a turn without thinking never writes.
        .reasoning("Check 17*23 \"first\".\n"),
        .assistantMessage(.assistant(text: "", toolCalls: [call], reasoning: "I should call calc.")),
        .metrics(Metrics(promptTokens: 20, generatedTokens: 30, contextUsed: 50, contextMax: 4096, finished: true,
                         stopReason: .toolCall, reasoningTokens: 12)),
        // Approval: new kinds, which a run whose tools need no approval never writes.
        .approvalRequested(call),
        .approvalAnswered(callId: "call_1", decision: .once),
        .approvalAnswered(callId: "call_2", decision: .run),
        .approvalAnswered(callId: "call_3", decision: .deny),
    ]

    /// The lines `loopl run --json` printed for ``events`` before AgentEvent was Codable.
    static let golden: [String] = [
        #"{"event":"iterationStarted","iteration":1}"#,
        #"{"event":"text","text":"Hé \"quoted\"\n\ttab"}"#,
        #"{"event":"metrics","metrics":{"promptTokens":20,"cachedPromptTokens":4,"generatedTokens":9,"ttftMs":41.5,"promptEvalMs":38.0,"tokensPerSecond":80.25,"contextUsed":29,"contextMax":4096,"finished":true,"stopReason":"end_turn","estimated":false}}"#,
        #"{"event":"metrics","metrics":{"promptTokens":0,"cachedPromptTokens":0,"generatedTokens":2,"contextUsed":0,"contextMax":0,"finished":false,"estimated":true}}"#,
        #"{"event":"assistantMessage","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"calc","arguments":{"expression":"2+2","n":1,"x":1.0,"deep":{"a":[true,null]}}}}]}}"#,
        #"{"event":"assistantMessage","message":{"role":"assistant","content":"Four."}}"#,
        #"{"event":"toolStarted","toolCall":{"id":"call_1","type":"function","function":{"name":"calc","arguments":{"expression":"2+2","n":1,"x":1.0,"deep":{"a":[true,null]}}}}}"#,
        #"{"event":"toolFinished","result":{"callId":"call_1","name":"calc","isError":false,"durationMs":3.0,"content":"4"}}"#,
        #"{"event":"toolFinished","result":{"callId":"call_2","name":"nope","isError":true,"durationMs":0.125,"content":"Unknown tool 'nope'."}}"#,
        #"{"event":"warning","message":"The model repeated a call."}"#,
        #"{"event":"retrying","iteration":2,"reason":"The worker exited with status 9 mid-stream."}"#,
        #"{"event":"finished","iterations":2,"reason":"answered"}"#,
        #"{"event":"finished","iterations":1,"reason":"budget"}"#,
        #"{"event":"finished","iterations":3,"reason":"cancelled"}"#,
        #"{"event":"reasoning","text":"Check 17*23 \"first\".\n"}"#,
        #"{"event":"assistantMessage","message":{"role":"assistant","content":null,"reasoning_content":"I should call calc.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"calc","arguments":{"expression":"2+2","n":1,"x":1.0,"deep":{"a":[true,null]}}}}]}}"#,
        #"{"event":"metrics","metrics":{"promptTokens":20,"cachedPromptTokens":0,"generatedTokens":30,"contextUsed":50,"contextMax":4096,"finished":true,"stopReason":"tool_call","estimated":false,"reasoningTokens":12}}"#,
        #"{"event":"approvalRequested","toolCall":{"id":"call_1","type":"function","function":{"name":"calc","arguments":{"expression":"2+2","n":1,"x":1.0,"deep":{"a":[true,null]}}}}}"#,
        #"{"event":"approvalAnswered","callId":"call_1","decision":"once"}"#,
        #"{"event":"approvalAnswered","callId":"call_2","decision":"run"}"#,
        #"{"event":"approvalAnswered","callId":"call_3","decision":"deny"}"#,
    ]

    @Test func everyEventEncodesToItsDocumentedLine() throws {
        #expect(Self.events.count == Self.golden.count)
        for (event, line) in zip(Self.events, Self.golden) {
            #expect(try JSONValue(encoding: event).jsonText() == line)
        }
    }

    @Test func everyEventDecodesBackEqual() throws {
        for (event, line) in zip(Self.events, Self.golden) {
            #expect(try JSONValue(parsing: line).decode(AgentEvent.self) == event)
            #expect(try JSONValue(encoding: event).decode(AgentEvent.self) == event)
        }
    }

    @Test func everyCaseIsCovered() {
        let names = Set(Self.golden.compactMap { try? JSONValue(parsing: $0)["event"]?.stringValue })
        #expect(names == ["iterationStarted", "text", "reasoning", "metrics", "assistantMessage", "toolStarted", "toolFinished", "warning",
                          "retrying", "finished", "approvalRequested", "approvalAnswered"])
    }

    /// Every example line of docs/events.md reads as an event and is written back byte for byte.
    @Test func theDocumentedExamplesAreTheCodableForm() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/events.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let examples = text.split(separator: "\n").filter { $0.hasPrefix(#"{"event":"#) }.map(String.init)
        #expect(examples.count == 13)
        for line in examples {
            let event = try JSONValue(parsing: line).decode(AgentEvent.self)
            #expect(try JSONValue(encoding: event).jsonText() == line)
        }
        #expect(text.contains("schema version \(AgentEvent.schemaVersion)"))
    }

    @Test func badEventsNameWhatIsWrong() {
        #expect(throws: LooplError(.invalidJSON, "AgentEvent 'event' is \"thinking\", not one of iterationStarted, text, reasoning, metrics, assistantMessage, approvalRequested, approvalAnswered, toolStarted, toolFinished, warning, retrying, finished.")) {
            try JSONValue.object(["event": "thinking"]).decode(AgentEvent.self)
        }
        #expect(throws: LooplError(.invalidJSON, "AgentEvent 'reason' is \"bored\", not one of answered, budget, cancelled.")) {
            try JSONValue.object(["event": "finished", "iterations": 1, "reason": "bored"]).decode(AgentEvent.self)
        }
        #expect(throws: LooplError(.invalidJSON, "AgentEvent 'result.durationMs' is missing.")) {
            try JSONValue.object(["event": "toolFinished", "result": ["callId": "c", "name": "n", "isError": false, "content": ""]])
                .decode(AgentEvent.self)
        }
        #expect(throws: LooplError(.invalidJSON, "AgentEvent 'iteration' must be a whole number.")) {
            try JSONValue.object(["event": "iterationStarted", "iteration": 1.0]).decode(AgentEvent.self)
        }
        #expect(throws: LooplError(.invalidJSON, "AgentEvent 'decision' is \"maybe\", not one of once, run, deny.")) {
            try JSONValue.object(["event": "approvalAnswered", "callId": "c", "decision": "maybe"]).decode(AgentEvent.self)
        }
    }
}
