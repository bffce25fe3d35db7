import Foundation
import Loopl
import Testing

@Suite struct MessageTests {
    static let call = ToolCall(id: "call_abc12345", name: "get_weather",
                               arguments: ["city": "Zürich", "days": 1, "metric": true, "ratio": 1.0,
                                           "nested": ["list": [1, 2.5, "x"]]])
    static let all: [Message] = [
        .system("Be brief."),
        .user("héllo \"quoted\" 🎉"),
        .assistant("Plain answer."),
        .assistant(text: "", toolCalls: [call]),
        .assistant(text: "Let me check.", toolCalls: [call, ToolCall(id: "call_2", name: "now")]),
        .tool(result: "{\"temp\": 21}", callId: "call_abc12345", name: "get_weather"),
    ]

    @Test(arguments: all)
    func losslessTextRoundTrip(_ message: Message) throws {
        #expect(try Message(templateValue: try JSONValue(parsing: message.templateValue.jsonText())) == message)
    }

    /// Foundation's coders print 1.0 as 1, so through them an integral double comes back an integer;
    /// everything else survives.
    @Test(arguments: all)
    func foundationCodableRoundTrip(_ message: Message) throws {
        let decoded = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
        #expect(decoded.role == message.role && decoded.text == message.text)
        #expect(decoded.toolCalls.map(\.name) == message.toolCalls.map(\.name))
        for (back, call) in zip(decoded.toolCalls, message.toolCalls) {
            #expect(back.arguments["ratio"]?.doubleValue == call.arguments["ratio"]?.doubleValue)
            #expect(back.arguments["nested"] == call.arguments["nested"])
            #expect(back.arguments["metric"] == call.arguments["metric"])
        }
    }

    @Test func losslessArgumentsThroughText() throws {
        let message = Message.assistant(text: "", toolCalls: [Self.call])
        let back = try Message(templateValue: try JSONValue(parsing: message.templateValue.jsonText()))
        #expect(back.toolCalls[0].arguments["ratio"] == .double(1.0))
        #expect(back.toolCalls[0].arguments["days"] == .integer(1))
        #expect(back.toolCalls[0].arguments["metric"] == .bool(true))
        #expect(Array(back.toolCalls[0].arguments.keys) == ["city", "days", "metric", "ratio", "nested"])
    }

    @Test func roleTextAndCalls() {
        #expect(Self.all.map(\.role) == ["system", "user", "assistant", "assistant", "assistant", "tool"])
        #expect(Self.all[1].text == "héllo \"quoted\" 🎉")
        #expect(Self.all[3].toolCalls == [Self.call])
        #expect(Self.all[5].toolCalls.isEmpty)
    }

    @Test func templateDictionaryShapes() {
        #expect(Message.system("s").templateValue == ["role": "system", "content": "s"])
        #expect(Message.user("u").templateValue == ["role": "user", "content": "u"])
        #expect(Message.assistant("a").templateValue == ["role": "assistant", "content": "a"])
        let withCalls = Message.assistant(text: "", toolCalls: [Self.call]).templateDictionary
        #expect(withCalls["content"] as? JSONValue == .null)
        let calls = (withCalls["tool_calls"] as? JSONValue)?.arrayValue
        #expect(calls?.count == 1)
        #expect(calls?[0]["id"] == "call_abc12345")
        #expect(calls?[0]["type"] == "function")
        #expect(calls?[0]["function"]?["name"] == "get_weather")
        #expect(calls?[0]["function"]?["arguments"]?["city"] == "Zürich")
        let result = Message.tool(result: "r", callId: "c1", name: "t").templateDictionary
        #expect(result["role"] as? JSONValue == "tool")
        #expect(result["tool_call_id"] as? JSONValue == "c1")
        #expect(result["name"] as? JSONValue == "t")
        #expect(result["content"] as? JSONValue == "r")
    }

    /// Thinking travels as `reasoning_content`, and is read from vLLM's `reasoning` and Ollama's `thinking` too.
    @Test func reasoningRoundTripsAsReasoningContent() throws {
        let thought = Message.assistant(text: "", toolCalls: [Self.call], reasoning: "Check the weather first.")
        #expect(thought.templateValue["reasoning_content"] == "Check the weather first.")
        #expect(thought.templateValue["content"] == .null)
        #expect(Array(thought.templateValue.objectValue?.keys ?? []) == ["role", "content", "reasoning_content", "tool_calls"])
        #expect(try Message(templateValue: try JSONValue(parsing: thought.templateValue.jsonText())) == thought)
        #expect(thought.reasoning == "Check the weather first." && Message.user("x").reasoning == nil)
        #expect(Message.assistant("Plain.").templateValue == ["role": "assistant", "content": "Plain."], "no thinking, no key")
        for key in ["reasoning", "thinking"] {
            let read = try Message(templateValue: ["role": "assistant", "content": "Yes.", key: "Because."])
            #expect(read == .assistant(text: "Yes.", toolCalls: [], reasoning: "Because."))
        }
        #expect(try Message(templateValue: ["role": "assistant", "content": "Yes.", "reasoning_content": ""]).reasoning == nil)
    }

    @Test func wireArgumentsAsStringAreRead() throws {
        let wire = try JSONValue(parsing: #"{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\": 1.0}"}}"#)
        #expect(try ToolCall(templateValue: wire).arguments == ["a": .double(1.0)])
        let bad = try JSONValue(parsing: #"{"function":{"name":"f","arguments":"[1]"}}"#)
        #expect(throws: LooplError.self) { try ToolCall(templateValue: bad) }
    }

    @Test func unknownRoleIsATypedError() throws {
        #expect(throws: LooplError.self) { try Message(templateValue: ["role": "robot", "content": "x"]) }
        #expect(throws: LooplError.self) { try Message(templateValue: ["content": "x"]) }
    }

    @Test func makeIdFormat() {
        let ids = (0..<200).map { _ in ToolCall.makeId() }
        for id in ids {
            #expect(id.hasPrefix("call_"))
            #expect(id.count == 13)
            #expect(id.dropFirst(5).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
        #expect(Set(ids).count == ids.count)
    }
}
