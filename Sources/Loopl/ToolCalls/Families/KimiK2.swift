extension ToolCallFormat {
    /// Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}`.
    public static let kimiK2 = ToolCallFormat(rawValue: "kimi-k2")
}

extension ToolCallFamily {
    static let kimiK2 = ToolCallFamily(
        format: .kimiK2, templateSigns: [["<|tool_calls_section_begin|>"]],
        markers: [.block("<|tool_calls_section_begin|>", JSONCallReaders.kimi), .block("<|tool_call_begin|>", JSONCallReaders.kimi)],
        grammar: .forms([CallForm(prefix: lit("<|tool_calls_section_begin|>"),
                                  body: .framed(head: { lit("<|tool_call_begin|>functions.\($0):") + " [0-9]{1,2} " + lit("<|tool_call_argument_begin|>") },
                                                tail: lit("<|tool_call_end|>")),
                                  suffix: lit("<|tool_calls_section_end|>"))],
                        triggers: [.word("<|tool_calls_section_begin|>")]))
}
