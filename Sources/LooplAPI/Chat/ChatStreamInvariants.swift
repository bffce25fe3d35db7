import Loopl

/// Checks a streamed chat completion (its chunks, in order, without `[DONE]`) against OpenAI's
/// streaming invariants, for tests of the encoder and of real streams.
///
/// The invariants: at least one chunk; every chunk has `object: "chat.completion.chunk"` and the
/// first chunk's `id`, `created` and `model`; a chunk with choices has exactly one, with `index` 0,
/// a `delta` object and a `finish_reason` key; only the first chunk's delta has `role`, and it is
/// "assistant"; exactly one chunk has a non-null `finish_reason`, it is a known reason, it is
/// "tool_calls" when calls were sent, and no delta follows it; a delta has at most one tool-call
/// entry, keyed by `index` 0, 1, ... in order; a call's first fragment has its `id`, `type:
/// "function"`, `function.name` and empty `arguments`, later fragments only `arguments`; each
/// call's arguments, joined, are a JSON object; when any chunk has a `usage` key, every chunk with
/// choices has `usage: null` and the last chunk alone has `choices: []` and a usage whose
/// `total_tokens` is `prompt_tokens + completion_tokens`; otherwise no chunk has empty choices.
package enum ChatStreamInvariants {
    /// Every invariant the chunks break, one sentence each; empty when they keep them all.
    package static func violations(in chunks: [JSONValue]) -> [String] {
        guard let first = chunks.first else { return ["the stream has no chunks"] }
        var check = Checker(first: first, withUsage: chunks.contains { $0["usage"] != nil })
        for (number, chunk) in chunks.enumerated() {
            check.chunk(chunk, number: number, isLast: number == chunks.count - 1)
        }
        check.end()
        return check.violations
    }

    /// The assistant message the chunks spell: `role`, `content` (null when empty and there are
    /// calls), `reasoning_content` when there was thinking and `tool_calls` (arguments joined)
    /// when there were calls — the shape of ``ChatAnswer/message``, for comparing the two.
    package static func message(from chunks: [JSONValue]) -> JSONValue {
        var text = "", reasoning = ""
        var calls: [JSONObject] = []
        for delta in chunks.compactMap({ $0["choices"]?.arrayValue?.first?["delta"] }) {
            text += delta["content"]?.stringValue ?? ""
            reasoning += delta["reasoning_content"]?.stringValue ?? ""
            for fragment in delta["tool_calls"]?.arrayValue ?? [] {
                guard let index = fragment["index"]?.intValue, index >= 0, index <= calls.count else { continue }
                if index == calls.count {
                    calls.append(["id": fragment["id"] ?? .null, "type": "function",
                                  "function": ["name": fragment["function"]?["name"] ?? .null, "arguments": ""]])
                }
                let joined = (calls[index]["function"]?["arguments"]?.stringValue ?? "")
                    + (fragment["function"]?["arguments"]?.stringValue ?? "")
                calls[index]["function"] = ["name": calls[index]["function"]?["name"] ?? .null, "arguments": .string(joined)]
            }
        }
        var message: JSONObject = ["role": "assistant", "content": text.isEmpty && !calls.isEmpty ? .null : .string(text)]
        if !reasoning.isEmpty { message["reasoning_content"] = .string(reasoning) }
        if !calls.isEmpty { message["tool_calls"] = .array(calls.map(JSONValue.object)) }
        return .object(message)
    }

    /// The reasons a `finish_reason` may give.
    static let reasons: Set<String> = ["stop", "length", "tool_calls", "content_filter"]

    /// The state of one pass over the chunks.
    private struct Checker {
        let first: JSONValue
        let withUsage: Bool
        var violations: [String] = []
        var finishReason: String?
        var calls: [String] = []
        var usageChunks = 0

        init(first: JSONValue, withUsage: Bool) {
            self.first = first
            self.withUsage = withUsage
        }

        mutating func fail(_ number: Int, _ problem: String) { violations.append("chunk \(number): \(problem)") }

        mutating func chunk(_ chunk: JSONValue, number: Int, isLast: Bool) {
            if chunk["object"] != "chat.completion.chunk" { fail(number, "`object` is not \"chat.completion.chunk\"") }
            for key in ["id", "created", "model"] where chunk[key] == nil || chunk[key] != first[key] {
                fail(number, "`\(key)` is missing or differs from the first chunk's")
            }
            if first["id"]?.stringValue == nil { fail(number, "`id` is not a string") }
            guard let choices = chunk["choices"]?.arrayValue else { return fail(number, "`choices` is not an array") }
            if choices.isEmpty {
                usageChunk(chunk, number: number, isLast: isLast)
                return
            }
            if withUsage, chunk["usage"] != .null { fail(number, "a chunk with choices has a `usage` that is not null") }
            guard choices.count == 1, let choice = choices.first, choice["index"] == 0 else {
                return fail(number, "`choices` does not hold exactly one choice with index 0")
            }
            self.choice(choice, number: number)
        }

        mutating func usageChunk(_ chunk: JSONValue, number: Int, isLast: Bool) {
            usageChunks += 1
            guard withUsage else { return fail(number, "`choices` is empty, but the stream has no usage") }
            if !isLast { fail(number, "the usage chunk is not the last chunk") }
            let usage = chunk["usage"]
            guard let prompt = usage?["prompt_tokens"]?.intValue, let completion = usage?["completion_tokens"]?.intValue,
                  let total = usage?["total_tokens"]?.intValue else {
                return fail(number, "`usage` lacks integer prompt_tokens, completion_tokens and total_tokens")
            }
            if total != prompt + completion { fail(number, "`usage.total_tokens` is not prompt_tokens + completion_tokens") }
        }

        mutating func choice(_ choice: JSONValue, number: Int) {
            guard let delta = choice["delta"]?.objectValue else { return fail(number, "`delta` is not an object") }
            if let role = delta["role"] {
                if number != 0 { fail(number, "`delta.role` appears after the first chunk") }
                if role != "assistant" { fail(number, "`delta.role` is not \"assistant\"") }
            } else if number == 0 {
                fail(number, "the first chunk's delta has no `role`")
            }
            if finishReason != nil, !delta.isEmpty { fail(number, "a delta follows the chunk with the finish_reason") }
            if let calls = delta["tool_calls"] { toolCalls(calls, number: number) }
            switch choice["finish_reason"] {
            case nil: fail(number, "the choice has no `finish_reason` key")
            case .null?: break
            case .string(let reason)?:
                if finishReason != nil { fail(number, "a second chunk has a non-null `finish_reason`") }
                if !ChatStreamInvariants.reasons.contains(reason) { fail(number, "`finish_reason` \"\(reason)\" is unknown") }
                finishReason = reason
            default: fail(number, "`finish_reason` is neither null nor a string")
            }
        }

        mutating func toolCalls(_ value: JSONValue, number: Int) {
            guard let entries = value.arrayValue, entries.count == 1, let entry = entries.first else {
                return fail(number, "`delta.tool_calls` does not hold exactly one entry")
            }
            guard let index = entry["index"]?.intValue else { return fail(number, "a tool-call entry has no integer `index`") }
            let arguments = entry["function"]?["arguments"]
            if index == calls.count {
                if entry["id"]?.stringValue?.isEmpty ?? true { fail(number, "call \(index)'s first fragment has no `id`") }
                if entry["type"] != "function" { fail(number, "call \(index)'s first fragment has no `type: \"function\"`") }
                if entry["function"]?["name"]?.stringValue?.isEmpty ?? true {
                    fail(number, "call \(index)'s first fragment has no `function.name`")
                }
                if arguments != "" { fail(number, "call \(index)'s first fragment has `arguments` other than \"\"") }
                calls.append("")
            } else if index == calls.count - 1 {
                if entry["id"] != nil || entry["type"] != nil || entry["function"]?["name"] != nil {
                    fail(number, "a later fragment of call \(index) repeats its id, type or name")
                }
                guard let text = arguments?.stringValue else { return fail(number, "a later fragment of call \(index) has no `arguments` text") }
                calls[index] += text
            } else {
                fail(number, "tool-call index \(index) is out of order (expected \(calls.count - 1) or \(calls.count))")
            }
        }

        mutating func end() {
            if finishReason == nil { violations.append("no chunk has a non-null `finish_reason`") }
            if !calls.isEmpty, let finishReason, finishReason != "tool_calls" {
                violations.append("calls were sent but `finish_reason` is \"\(finishReason)\", not \"tool_calls\"")
            }
            if withUsage, usageChunks != 1 { violations.append("the stream has \(usageChunks) usage chunks, not one") }
            for (index, text) in calls.enumerated() where (try? JSONValue(parsing: text))?.objectValue == nil {
                violations.append("call \(index)'s joined arguments are not a JSON object: \(text)")
            }
        }
    }
}
