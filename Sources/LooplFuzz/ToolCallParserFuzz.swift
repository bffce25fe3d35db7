import Loopl

/// ``ToolCallParser`` on a model's text, whole and streamed in pieces: the pieces' events must add
/// up to the whole text's result. Input: a header line `FORMAT [tools] [think|plain]` (unknown
/// formats read as `.auto`; `think`: the prompt opened thinking, `plain`: it did not, neither:
/// unknown), then the text.
package enum ToolCallParserFuzz {
    package static let target = FuzzTarget(name: "toolcalls", dictionary: dictionary.map { Array($0.utf8) }) { run($0) }

    static func run(_ bytes: [UInt8]) -> String? {
        let input = FuzzInput(bytes)
        let format = input.header.first.map { ToolCallFormat(rawValue: String($0)) }
            .flatMap { ToolCallFormat.allCases.contains($0) ? $0 : nil } ?? .auto
        let tools: Set<String>? = input.header.contains("tools") ? ["f", "get_weather", "search"] : nil
        let think: Bool? = input.header.contains("think") ? true : input.header.contains("plain") ? false : nil
        let text = String(decoding: input.body, as: UTF8.self)
        let parser = ToolCallParser(format: format, toolNames: tools, startsInReasoning: think)
        let whole = parser.parse(text)

        var stream = parser
        var events: [ToolCallParser.Event] = []
        var seed = FuzzInput.checksum(input.body)
        var scalars = Substring(text).unicodeScalars[...]
        while !scalars.isEmpty {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(seed >> 60) + 1
            let end = scalars.index(scalars.startIndex, offsetBy: length, limitedBy: scalars.endIndex) ?? scalars.endIndex
            events += stream.feed(String(scalars[..<end]))
            scalars = scalars[end...]
        }
        events += stream.finish()
        let streamed = ToolCallParser.result(of: events)
        return withoutIds(streamed) == withoutIds(whole) ? nil : "streamed in pieces the text parsed as \(streamed), whole as \(whole)"
    }

    /// The result with its calls' ids left out: a call written without one gets a random id.
    static func withoutIds(_ result: ToolCallParser.Result) -> ToolCallParser.Result {
        var result = result
        result.toolCalls = result.toolCalls.map { ToolCall(id: "", name: $0.name, arguments: $0.arguments) }
        return result
    }

    static let dictionary = [
        "<tool_call>", "</tool_call>", "\"name\"", "\"arguments\"", "\"parameters\"", "<think>", "</think>",
        "[TOOL_CALLS]", "[ARGS]", "[THINK]", "[/THINK]", "<function=", "<parameter=", "</parameter>", "</function>",
        "<|channel|>", "<|message|>", "<|call|>", " to=functions.", "<|constrain|>json", "<|tool_call>", "<tool_call|>",
        "call:", "<|\"|>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
        "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜DSML｜function_calls>",
        ">>>", "all\n", "functools[", "```json\n", "```", "<|python_tag|>", "<|START_ACTION|>", "<|END_ACTION|>",
        "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<minimax:tool_call>",
        "<invoke name=\"", "</invoke>", "<parameter name=\"", "<seed:think>", "<seed:tool_call>", "<|tool_call_start|>",
        "<|tool_call_end|>", "<start_function_call>", "<escape>", "<TOOLCALL>", "<|action_start|><|plugin|>",
        "<|tools_prefix|>", "<|open|>", "<|sep|>", "<|close|>", "]<]minimax[>[", "<atem:invoke name=\"", "<tool_calls>",
        "True", "None", "null", "1e999", "-0", "\\u0000", "\\ud800", "\"", "{", "}", "[", "]", "(", ")", "=", ",", ":",
    ]
}
