@testable import LooplAPI
import Loopl
import Testing

/// The checker itself: a good stream passes, and each way of breaking it is reported.
@Suite struct ChatStreamInvariantsTests {
    let good = stream(turnWithCalls, includeUsage: true)

    /// Sets `value` at `path` (keys, or integers for array elements) inside `json`.
    func setting(_ json: JSONValue, _ path: [any Sendable], to value: JSONValue?) -> JSONValue {
        guard let step = path.first else { return value ?? .null }
        let rest = Array(path.dropFirst())
        if let index = step as? Int, var array = json.arrayValue {
            array[index] = setting(array[index], rest, to: value)
            return .array(array)
        }
        guard let key = step as? String, var object = json.objectValue else { return json }
        object[key] = rest.isEmpty ? value : setting(object[key] ?? [:], rest, to: value)
        return .object(object)
    }

    func breaking(_ number: Int, _ path: [any Sendable], to value: JSONValue?) -> [String] {
        var chunks = good
        chunks[number] = setting(chunks[number], path, to: value)
        return ChatStreamInvariants.violations(in: chunks)
    }

    @Test func theGoodStreamPasses() {
        #expect(ChatStreamInvariants.violations(in: good) == [])
        #expect(ChatStreamInvariants.violations(in: []) == ["the stream has no chunks"])
    }

    @Test func eachBrokenInvariantIsReported() {
        let cases: [(Int, [any Sendable], JSONValue?, String)] = [
            (3, ["id"], "chatcmpl-other", "`id` is missing or differs"),
            (3, ["created"], 1, "`created` is missing or differs"),
            (3, ["model"], nil, "`model` is missing or differs"),
            (2, ["object"], "chat.completion", "`object` is not"),
            (2, ["choices", 0, "delta", "role"], "assistant", "`delta.role` appears after the first chunk"),
            (0, ["choices", 0, "delta", "role"], nil, "the first chunk's delta has no `role`"),
            (0, ["choices", 0, "delta", "role"], "user", "is not \"assistant\""),
            (1, ["choices", 0, "finish_reason"], "stop", "a second chunk has a non-null `finish_reason`"),
            (1, ["choices", 0, "finish_reason"], nil, "no `finish_reason` key"),
            (10, ["choices", 0, "finish_reason"], "done", "is unknown"),
            (10, ["choices", 0, "finish_reason"], "stop", "not \"tool_calls\""),
            (10, ["choices", 0, "finish_reason"], .null, "no chunk has a non-null `finish_reason`"),
            (2, ["choices", 0, "index"], 1, "exactly one choice with index 0"),
            (2, ["usage"], ["total_tokens": 1], "a chunk with choices has a `usage` that is not null"),
            (11, ["usage", "total_tokens"], 50, "is not prompt_tokens + completion_tokens"),
            (11, ["usage"], nil, "lacks integer prompt_tokens"),
            (4, ["choices", 0, "delta", "tool_calls", 0, "id"], nil, "call 0's first fragment has no `id`"),
            (4, ["choices", 0, "delta", "tool_calls", 0, "type"], nil, "no `type: \"function\"`"),
            (4, ["choices", 0, "delta", "tool_calls", 0, "function", "name"], nil, "has no `function.name`"),
            (4, ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"], "{", "`arguments` other than \"\""),
            (5, ["choices", 0, "delta", "tool_calls", 0, "id"], "call_a", "repeats its id, type or name"),
            (5, ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"], #"{"city":"#, "joined arguments are not a JSON object"),
            (6, ["choices", 0, "delta", "tool_calls", 0, "index"], 2, "out of order"),
            (6, ["choices", 0, "delta", "tool_calls"], [], "does not hold exactly one entry"),
        ]
        for (number, path, value, expected) in cases {
            let found = breaking(number, path, to: value)
            #expect(found.contains { $0.contains(expected) }, "chunk \(number) \(path): expected '\(expected)', got \(found)")
        }
    }

    @Test func aDeltaAfterTheFinishReasonIsReported() {
        var chunks = good
        chunks[8] = setting(chunks[8], ["choices", 0, "finish_reason"], to: "tool_calls")
        chunks[10] = setting(chunks[10], ["choices", 0, "finish_reason"], to: .null)
        let found = ChatStreamInvariants.violations(in: chunks)
        #expect(found.contains { $0.hasPrefix("chunk 9:") && $0.contains("a delta follows the chunk with the finish_reason") })
    }

    @Test func usageChunksAreCountedAndPlaced() {
        #expect(ChatStreamInvariants.violations(in: Array(good.dropLast())).contains { $0.contains("0 usage chunks") })
        let moved = [good[good.count - 1]] + good.dropLast()
        #expect(ChatStreamInvariants.violations(in: moved).contains { $0.contains("not the last chunk") })
        let plain = stream([.text("a")], includeUsage: false)
        let extra = plain + [setting(plain[0], ["choices"], to: [])]
        #expect(ChatStreamInvariants.violations(in: extra).contains { $0.contains("but the stream has no usage") })
    }
}
