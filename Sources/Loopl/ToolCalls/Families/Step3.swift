extension ToolCallFamily {
    static let step3 = ToolCallFamily(
        format: .step3, templateSigns: [["steptml:invoke"]],
        markers: [.block("<｜tool_calls_begin｜>", XMLCallReaders.step3)],
        grammar: .forms([CallForm(prefix: lit("<｜tool_calls_begin｜>"), open: lit("<｜tool_call_begin｜>function<｜tool_sep｜>"),
                                  body: .tagged(TaggedParameters(
                                      callOpen: { lit("<steptml:invoke name=\"\($0)\">") }, callClose: lit("</steptml:invoke>"),
                                      parameterOpen: { name, _, _ in lit("<steptml:parameter name=\"\(name)\">") },
                                      parameterClose: lit("</steptml:parameter>"), delimiter: "</steptml:parameter>")),
                                  close: lit("<｜tool_call_end｜>"), suffix: lit("<｜tool_calls_end｜>"))],
                        triggers: [.word("<｜tool_calls_begin｜>")]))
}

extension ToolCallFormat {
    /// Step 3: `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="F">`
    /// with `<steptml:parameter name="P">V</steptml:parameter>` tags.
    public static let step3 = ToolCallFormat(rawValue: "step3")
}
