extension ToolCallFormat {
    /// LFM2: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
    public static let lfm2 = ToolCallFormat(rawValue: "lfm2")
}

extension ToolCallFamily {
    static let lfm2 = ToolCallFamily(
        format: .lfm2, templateSigns: [["<|tool_call_start|>"]],
        markers: [.block("<|tool_call_start|>", PythonicCalls.lfm2)],
        grammar: .forms([CallForm(prefix: lit("<|tool_call_start|>["), body: .pythonic, separator: lit(", "),
                                  suffix: lit("]<|tool_call_end|>"))],
                        triggers: [.word("<|tool_call_start|>")]))
}
