/// Markup that several families write alike.
extension Marker {
    /// `<tool_call>{...}</tool_call>` (Hermes, Qwen, GLM, Granite 4, Nemotron 3).
    static let toolCall = Marker.block("<tool_call>", JSONCallReaders.toolCall)
    /// `<function=NAME>` with JSON or `<parameter=P>` tags (Qwen3-Coder, Functionary v3.1).
    static let bareFunction = Marker.block("<function=", XMLCallReaders.function)
    /// Llama 3.x `<|python_tag|>` calls.
    static let pythonTag = Marker.block("<|python_tag|>", JSONCallReaders.llamaPythonTag)
    /// Llama 3.x end-of-message tokens.
    static let llamaEnds: [Marker] = [.drop("<|eom_id|>"), .drop("<|eot_id|>")]
    /// `functools[{...}]` (FireFunction, Phi-4).
    static let functools = Marker.block("functools", JSONCallReaders.block("functools", nil))
    /// `<|tool_call|>[...]<|/tool_call|>` (Phi-4, Granite 3).
    static let pipeToolCall = Marker.block("<|tool_call|>", JSONCallReaders.block("<|tool_call|>", "<|/tool_call|>"))
    /// DeepSeek R1 and V3.x call blocks.
    static let deepSeek: [Marker] = [
        .block("<｜tool▁calls▁begin｜>", JSONCallReaders.deepSeek),
        .block("<｜tool▁call▁begin｜>", JSONCallReaders.deepSeek),
    ]
    /// `<tool_calls>...</tool_calls>` (MiniMax M1, Jamba, Apriel).
    static let toolCallsTag = Marker.block("<tool_calls>", JSONCallReaders.block("<tool_calls>", "</tool_calls>"))
}

extension ToolCallFamily {
    /// The GBNF literal of a text.
    static func lit(_ text: String) -> String { Grammar.literal(text) }

    /// The tokens of DeepSeek R1 and V3.x calls.
    static let deepSeekTokens = (calls: "<｜tool▁calls▁begin｜>", call: "<｜tool▁call▁begin｜>", separator: "<｜tool▁sep｜>",
                                 callEnd: "<｜tool▁call▁end｜>", callsEnd: "<｜tool▁calls▁end｜>")
}

extension CallForm {
    /// `open`, a JSON array of calls, `close`.
    static func jsonArray(_ open: String, _ close: String, body: CallBody = .json()) -> CallForm {
        CallForm(prefix: ToolCallFamily.lit(open + "[") + " space", body: body, separator: #""," space"#,
                 suffix: "space " + ToolCallFamily.lit("]" + close))
    }
}

extension TaggedParameters {
    /// `<PREFIXinvoke name="F">` calls with `<PREFIXparameter name="P">V</PREFIXparameter>` (MiniMax M2, Muse).
    static func invoke(_ prefix: String) -> TaggedParameters {
        TaggedParameters(callOpen: { ToolCallFamily.lit("<\(prefix)invoke name=\"\($0)\">\n") },
                         callClose: ToolCallFamily.lit("</\(prefix)invoke>\n"),
                         parameterOpen: { name, _, _ in ToolCallFamily.lit("<\(prefix)parameter name=\"\(name)\">") },
                         parameterClose: ToolCallFamily.lit("</\(prefix)parameter>\n"), delimiter: "</\(prefix)parameter>",
                         trimmed: true)
    }

    /// `<function=F>` calls with `<parameter=P>` tags: Qwen3-Coder writes each value on lines of its
    /// own, Seed-OSS right after the tag.
    static func functionTags(valuesOnOwnLines: Bool) -> TaggedParameters {
        let lineBreak = valuesOnOwnLines ? "\n" : ""
        return TaggedParameters(
            callOpen: { ToolCallFamily.lit("<function=\($0)>\n") }, callClose: ToolCallFamily.lit("</function>\n"),
            parameterOpen: { name, _, _ in ToolCallFamily.lit("<parameter=\(name)>" + lineBreak) },
            parameterClose: ToolCallFamily.lit(lineBreak + "</parameter>\n"), delimiter: "</parameter>")
    }
}
