@testable import LooplAPI
import Loopl
import Testing

@Suite struct ChatAnswerTests {
    @Test func aTurnWithCallsHasTheOpenAIShape() throws {
        let answer = completion(turnWithCalls)
        let json = answer.json
        #expect(json["id"] == "chatcmpl-test")
        #expect(json["object"] == "chat.completion")
        #expect(json["created"] == 1_700_000_000)
        #expect(json["model"] == "m")
        let choice = try #require(json["choices"]?.arrayValue?.first)
        #expect(json["choices"]?.arrayValue?.count == 1)
        #expect(choice["index"] == 0)
        #expect(choice["finish_reason"] == "tool_calls")
        #expect(choice["logprobs"] == .null)
        let message = try #require(choice["message"])
        #expect(message["role"] == "assistant")
        #expect(message["content"] == "Checking the \"weather\"…")
        #expect(message["reasoning_content"] == "Two cities, two calls.")
        #expect(message["tool_calls"]?.arrayValue?.first ==
                ["id": "call_a", "type": "function",
                 "function": ["name": "weather", "arguments": #"{"city":"Paris","units":["c",1,2.5,true,null]}"#]])
        #expect(message["tool_calls"]?.arrayValue?.count == 3)
        #expect(json["usage"]?["total_tokens"] == 51)
        #expect(json["usage"]?["prompt_tokens_details"]?["cached_tokens"] == 8)
        #expect(try JSONValue(parsing: answer.body) == json)
    }

    @Test func contentIsNullOnlyForCallsWithoutText() {
        let calls = completion([.toolCall(ToolCall(id: "c", name: "f"))]).message
        #expect(calls["content"] == .null)
        let plain = completion([], final: Metrics(stopReason: .endTurn)).message
        #expect(plain == ["role": "assistant", "content": ""])
        let text = completion([.text("Hello")], final: Metrics(stopReason: .endTurn)).message
        #expect(text == ["role": "assistant", "content": "Hello"])
    }

    @Test func usageLeavesOutReasoningTokensWhenNoneWereCounted() {
        let usage = completion([.text("a")], final: Metrics(promptTokens: 3, generatedTokens: 2, stopReason: .endTurn)).json["usage"]
        #expect(usage == ["prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5,
                          "prompt_tokens_details": ["cached_tokens": 0]])
        #expect(ChatAnswer(model: "m").json["usage"]?["total_tokens"] == 0)
    }

    @Test func withoutParallelCallsTheFirstCallIsKept() {
        var answer = ChatAnswer(model: "m", parallelToolCalls: false)
        answer.add(.text("a"))
        #expect(!answer.isSatisfied)
        answer.add(.toolCall(ToolCall(id: "one", name: "f")))
        #expect(answer.isSatisfied)
        answer.add(.toolCall(ToolCall(id: "two", name: "g")))
        #expect(answer.turn.toolCalls.map(\.id) == ["one"])
        var parallel = ChatAnswer(model: "m")
        parallel.add(.toolCall(ToolCall(id: "one", name: "f")))
        parallel.add(.toolCall(ToolCall(id: "two", name: "g")))
        #expect(!parallel.isSatisfied)
        #expect(parallel.turn.toolCalls.count == 2)
    }

    @Test func theWholeAnswerFeedsBackAsTheNextRequestsHistory() throws {
        let message = completion(turnWithCalls).message
        let body: JSONValue = ["messages": [["role": "user", "content": "q"], message,
                                            ["role": "tool", "tool_call_id": "call_b", "content": "noon"]]]
        let parsed = try ChatRequest(json: body)
        #expect(parsed.messages[1].toolCalls == turnWithCalls.compactMap { if case .toolCall(let c) = $0 { c } else { nil } })
        #expect(parsed.messages[1].reasoning == "Two cities, two calls.")
        #expect(parsed.messages[2] == .tool(result: "noon", callId: "call_b", name: "time"))
    }
}
