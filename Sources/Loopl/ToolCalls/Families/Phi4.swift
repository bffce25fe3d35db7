extension ToolCallFormat {
    /// Phi-4: `functools[{...}]` and `<|tool_call|>[...]<|/tool_call|>`.
    public static let phi4 = ToolCallFormat(rawValue: "phi-4")
}

extension ToolCallFamily {
    static let phi4 = ToolCallFamily(
        format: .phi4,
        markers: [.functools, .pipeToolCall],
        grammar: .forms([.jsonArray("<|tool_call|>", "<|/tool_call|>")], triggers: [.word("<|tool_call|>")]))
}
