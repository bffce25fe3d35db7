@testable import LooplAPI
import Loopl
import Testing

/// The whole Messages answer and Anthropic's error shape.
@Suite struct MessagesAnswerTests {
    static let metrics = Metrics(promptTokens: 30, cachedPromptTokens: 10, generatedTokens: 5, finished: true, stopReason: .endTurn)

    @Test func anAnswerHasReasoningTextAndCallsInOrder() {
        var answer = MessagesAnswer(id: "msg_1", model: "claude-sonnet-4-5")
        let call = ToolCall(id: "call_ab12", name: "get_weather", arguments: ["city": "Paris"])
        for event: ModelEvent in [.reasoning("Think."), .text("Hi "), .toolCall(call), .text("there"), .metrics(Self.metrics)] {
            answer.add(event)
        }
        let expected: JSONValue = [
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [["type": "thinking", "thinking": "Think.", "signature": "loopl"],
                        ["type": "text", "text": "Hi there"],
                        ["type": "tool_use", "id": "toolu_ab12", "name": "get_weather", "input": ["city": "Paris"]]],
            "stop_reason": "tool_use", "stop_sequence": .null,
            "usage": ["input_tokens": 20, "cache_read_input_tokens": 10, "cache_creation_input_tokens": 0, "output_tokens": 5]]
        #expect(answer.json == expected)
    }

    @Test func stopReasonsAndTheStopSequence() {
        func answer(_ reason: Metrics.StopReason, stops: [String] = []) -> JSONValue {
            var answer = MessagesAnswer(model: "m", stops: stops)
            answer.add(.text("x"))
            answer.add(.metrics(Metrics(finished: true, stopReason: reason)))
            return answer.json
        }
        #expect(answer(.endTurn)["stop_reason"] == "end_turn")
        #expect(answer(.maxTokens)["stop_reason"] == "max_tokens")
        #expect(answer(.stop, stops: ["END"])["stop_reason"] == "stop_sequence")
        #expect(answer(.stop, stops: ["END"])["stop_sequence"] == "END")
        #expect(answer(.stop, stops: ["A", "B"])["stop_sequence"] == .null)
        #expect(answer(.endTurn, stops: ["END"])["stop_sequence"] == .null)
        #expect(MessagesAnswer(model: "m").json["content"] == [])
    }

    @Test func onlyOneCallWhenParallelUseIsDisabled() {
        var answer = MessagesAnswer(model: "m", parallelToolCalls: false)
        answer.add(.toolCall(ToolCall(name: "a")))
        #expect(answer.isSatisfied)
        answer.add(.toolCall(ToolCall(name: "b")))
        #expect(answer.json["content"]?.arrayValue?.count == 1)
    }

    @Test func errorsTakeAnthropicsShapeAndType() {
        let cases: [(APIError, String)] = [
            (.invalidRequest("bad", param: "x"), "invalid_request_error"), (.unauthorized, "authentication_error"),
            (.modelNotFound("m", available: []), "not_found_error"), (.tooLarge(limit: 1), "request_too_large"),
            (.busy(retryAfter: 1), "rate_limit_error"), (.internalError("boom"), "api_error"),
            (.unavailable("down"), "overloaded_error"), (.methodNotAllowed("GET", allowed: ["POST"]), "invalid_request_error")]
        for (error, type) in cases {
            #expect(error.anthropicJSON == ["type": "error", "error": ["type": .string(type), "message": .string(error.message)]])
        }
        let event = String(decoding: APIError.internalError("boom").anthropicStreamEvent, as: UTF8.self)
        #expect(event == #"event: error"# + "\n" + #"data: {"type":"error","error":{"type":"api_error","message":"boom"}}"# + "\n\n")
        #expect(String(decoding: AnthropicSSE.ping, as: UTF8.self) == "event: ping\ndata: {\"type\":\"ping\"}\n\n")
    }
}
