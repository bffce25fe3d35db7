import Loopl

/// OpenAI's `/v1/chat/completions`, where the server renders the prompt: deltas of `content`,
/// `reasoning_content` and `tool_calls`, and a `finish_reason` at the end.
package struct ChatWire: ServerWire {
    package let messages: [Message]
    package let tools: [ToolSpec]
    package let options: GenerationOptions

    package init(messages: [Message], tools: [ToolSpec], options: GenerationOptions) {
        self.messages = messages
        self.tools = tools
        self.options = options
    }

    package var opened: ReasoningMarkup? { nil }
    package var path: String { "/v1/chat/completions" }
    package var promptCharacters: Int { messages.reduce(0) { $0 + $1.text.count } }
    package func expectsTimings(llamaCpp: Bool) -> Bool { llamaCpp }

    /// The server parses calls and thinking itself; a call that leaks into the content as
    /// `<tool_call>` markup (a template without tool support) is lifted from the text.
    package var markup: ToolCallFormat? { !tools.isEmpty && options.toolChoice != .none ? .hermes : nil }

    package func body(llamaCpp: Bool) -> JSONValue {
        ServerRequest.chat(messages: messages, tools: tools, options: options, llamaCpp: llamaCpp)
    }

    package func read(_ chunk: JSONValue, into assembler: inout TurnAssembler, events: LiftingContinuation) -> Bool {
        if let choice = chunk["choices"]?.arrayValue?.first {
            let delta = choice["delta"]
            let reasoning = delta?["reasoning_content"]?.stringValue ?? delta?["reasoning"]?.stringValue
            if let reasoning, let event = assembler.reasoning(reasoning) { events.yield(event) }
            if let content = delta?["content"]?.stringValue, let event = assembler.text(content) { events.yield(event) }
            for call in delta?["tool_calls"]?.arrayValue ?? [] { assembler.toolCallDelta(call) }
            if let reason = choice["finish_reason"]?.stringValue { assembler.ending = Self.finish(reason: reason) }
        }
        assembler.record(timings: chunk["timings"], usage: chunk["usage"])
        return false
    }

    private static func finish(reason: String) -> TurnAssembler.Finish {
        switch reason {
        case "length": .length
        case "tool_calls", "function_call": .toolCalls
        default: .stopOrEnd
        }
    }
}
