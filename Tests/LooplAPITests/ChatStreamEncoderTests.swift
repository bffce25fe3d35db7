@testable import LooplAPI
import Loopl
import Testing

/// The events of a turn that thinks, writes, calls two tools and stops on the calls.
let turnWithCalls: [ModelEvent] = [
    .reasoning("Two cities, "), .reasoning("two calls."),
    .text("Checking "), .text(""), .text("the \"weather\"…"),
    .metrics(Metrics(promptTokens: 20, generatedTokens: 3)),
    .toolCall(ToolCall(id: "call_a", name: "weather", arguments: ["city": "Paris", "units": ["c", 1, 2.5, true, .null]])),
    .toolCall(ToolCall(id: "call_b", name: "time", arguments: [:])),
    .toolCall(ToolCall(id: "call_c", name: "weather", arguments: ["city": "Zürich\n"])),
]

let finalMetrics = Metrics(promptTokens: 20, cachedPromptTokens: 8, generatedTokens: 31, finished: true,
                           stopReason: .toolCall, reasoningTokens: 6)

/// The chunks an encoder sends for `events` and the end.
func stream(_ events: [ModelEvent], includeUsage: Bool, parallel: Bool = true, final: Metrics? = finalMetrics) -> [JSONValue] {
    var encoder = ChatStreamEncoder(id: "chatcmpl-test", model: "m", created: 1_700_000_000, includeUsage: includeUsage,
                                   parallelToolCalls: parallel)
    return events.flatMap { encoder.chunks(for: $0) } + encoder.finish(final)
}

/// The whole answer for the same events.
func completion(_ events: [ModelEvent], parallel: Bool = true, final: Metrics? = finalMetrics) -> ChatAnswer {
    var answer = ChatAnswer(id: "chatcmpl-test", model: "m", created: 1_700_000_000, parallelToolCalls: parallel)
    for event in events { answer.add(event) }
    if let final { answer.add(.metrics(final)) }
    return answer
}

@Suite struct ChatStreamEncoderTests {
    @Test(arguments: [true, false])
    func aTurnWithReasoningTextAndCallsKeepsEveryInvariant(includeUsage: Bool) {
        let chunks = stream(turnWithCalls, includeUsage: includeUsage)
        #expect(ChatStreamInvariants.violations(in: chunks) == [])
        #expect(chunks.count == 4 + 6 + 1 + (includeUsage ? 1 : 0))
    }

    @Test func theStreamSpellsTheSameMessageAsTheWholeAnswer() {
        let spelled = ChatStreamInvariants.message(from: stream(turnWithCalls, includeUsage: true))
        let whole = completion(turnWithCalls)
        #expect(spelled == whole.message)
        let arguments = spelled["tool_calls"]?.arrayValue?.map { $0["function"]?["arguments"] }
        #expect(arguments == [#"{"city":"Paris","units":["c",1,2.5,true,null]}"#, "{}", #"{"city":"Zürich\n"}"#])
    }

    @Test func aCallIsAHeadFragmentAndAnArgumentsFragment() {
        let chunks = stream([.toolCall(ToolCall(id: "call_x", name: "f", arguments: ["a": 1]))], includeUsage: false)
        #expect(chunks.count == 3)
        #expect(chunks[0]["choices"]?.arrayValue?[0]["delta"] ==
                ["role": "assistant",
                 "tool_calls": [["index": 0, "id": "call_x", "type": "function", "function": ["name": "f", "arguments": ""]]]])
        #expect(chunks[1]["choices"]?.arrayValue?[0]["delta"] ==
                ["tool_calls": [["index": 0, "function": ["arguments": #"{"a":1}"#]]]])
        #expect(chunks[2]["choices"]?.arrayValue?[0]["finish_reason"] == "tool_calls")
    }

    @Test func textAndReasoningAreDeltasAndTheRoleComesOnce() {
        let chunks = stream([.reasoning("hm"), .text("Hi"), .text("!")], includeUsage: false,
                            final: Metrics(finished: true, stopReason: .endTurn))
        let deltas = chunks.compactMap { $0["choices"]?.arrayValue?.first?["delta"] }
        #expect(deltas == [["role": "assistant", "reasoning_content": "hm"], ["content": "Hi"], ["content": "!"], [:]])
        #expect(chunks.map { $0["choices"]?.arrayValue?.first?["finish_reason"] } == [.null, .null, .null, "stop"])
        #expect(chunks.allSatisfy { $0["usage"] == nil })
    }

    @Test func includeUsageEndsWithAChunkWithoutChoices() throws {
        let chunks = stream([.text("Hi")], includeUsage: true)
        #expect(chunks.dropLast().allSatisfy { $0["usage"] == .null })
        let last = try #require(chunks.last)
        #expect(last["choices"] == [])
        #expect(last["usage"] == ["prompt_tokens": 20, "completion_tokens": 31, "total_tokens": 51,
                                  "prompt_tokens_details": ["cached_tokens": 8],
                                  "completion_tokens_details": ["reasoning_tokens": 6]])
        #expect(last["id"] == "chatcmpl-test")
        #expect(last["object"] == "chat.completion.chunk")
    }

    @Test func anEmptyTurnStillOpensWithTheRoleAndFinishes() {
        let chunks = stream([], includeUsage: true, final: nil)
        #expect(ChatStreamInvariants.violations(in: chunks) == [])
        #expect(chunks[0]["choices"]?.arrayValue?[0]["delta"] == ["role": "assistant"])
        #expect(chunks[1]["usage"]?["total_tokens"] == 0)
    }

    @Test func startSendsTheRoleOnceAndFinishOnlyOnce() {
        var encoder = ChatStreamEncoder(id: "chatcmpl-s", model: "m", created: 1, includeUsage: false)
        var chunks = encoder.start()
        chunks += encoder.start()
        chunks += encoder.chunks(for: .text("a"))
        chunks += encoder.finish(Metrics(stopReason: .maxTokens))
        chunks += encoder.finish(Metrics(stopReason: .endTurn))
        chunks += encoder.chunks(for: .text("late"))
        #expect(ChatStreamInvariants.violations(in: chunks) == [])
        #expect(chunks.count == 3)
        #expect(chunks[0]["choices"]?.arrayValue?[0]["delta"] == ["role": "assistant", "content": ""])
        #expect(chunks[2]["choices"]?.arrayValue?[0]["finish_reason"] == "length")
    }

    @Test func withoutParallelCallsOnlyTheFirstCallIsSent() {
        var encoder = ChatStreamEncoder(id: "chatcmpl-p", model: "m", created: 1, includeUsage: false, parallelToolCalls: false)
        var chunks: [JSONValue] = []
        for event in turnWithCalls {
            chunks += encoder.chunks(for: event)
            if case .toolCall = event { #expect(encoder.isSatisfied) } else if !encoder.isSatisfied { continue }
        }
        chunks += encoder.finish(finalMetrics)
        #expect(ChatStreamInvariants.violations(in: chunks) == [])
        let spelled = ChatStreamInvariants.message(from: chunks)
        #expect(spelled["tool_calls"]?.arrayValue?.map { $0["id"] } == ["call_a"])
        #expect(spelled == completion(turnWithCalls, parallel: false).message)
    }

    @Test func isSatisfiedOnlyAfterTheOneCall() {
        var encoder = ChatStreamEncoder(model: "m", includeUsage: false, parallelToolCalls: false)
        _ = encoder.chunks(for: .text("x"))
        #expect(!encoder.isSatisfied)
        _ = encoder.chunks(for: .toolCall(ToolCall(name: "f")))
        #expect(encoder.isSatisfied)
        var parallel = ChatStreamEncoder(model: "m", includeUsage: false)
        _ = parallel.chunks(for: .toolCall(ToolCall(name: "f")))
        #expect(!parallel.isSatisfied)
    }

    @Test func freshIdsAndTimesAreFilledIn() {
        var encoder = ChatStreamEncoder(model: "m", includeUsage: false)
        let chunk = encoder.chunks(for: .text("a"))[0]
        #expect(chunk["id"]?.stringValue?.hasPrefix("chatcmpl-") == true)
        #expect(chunk["id"]?.stringValue?.count == 9 + 24)
        #expect((chunk["created"]?.intValue ?? 0) > 1_700_000_000)
        #expect(OpenAIFields.makeId() != OpenAIFields.makeId())
    }

    @Test(arguments: [
        (Metrics.StopReason.endTurn, "stop"), (.stop, "stop"), (.maxTokens, "length"), (.toolCall, "tool_calls"),
        (.cancelled, "stop"),
    ])
    func stopReasonsBecomeFinishReasons(reason: Metrics.StopReason, expected: String) {
        let chunks = stream([.text("a")], includeUsage: false, final: Metrics(stopReason: reason))
        #expect(chunks.last?["choices"]?.arrayValue?.first?["finish_reason"] == .string(expected))
        #expect(completion([.text("a")], final: Metrics(stopReason: reason)).finishReason == expected)
        #expect(completion([.toolCall(ToolCall(name: "f"))], final: Metrics(stopReason: reason)).finishReason == "tool_calls")
    }
}
