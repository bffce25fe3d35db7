extension ToolCallFormat {
    /// MiniMax M1: `<tool_calls>{...}\n{...}</tool_calls>`.
    public static let minimaxM1 = ToolCallFormat(rawValue: "minimax-m1")
}

extension ToolCallFamily {
    static let minimaxM1 = ToolCallFamily(
        format: .minimaxM1,
        markers: [.toolCallsTag],
        grammar: .forms([CallForm(prefix: lit("<tool_calls>\n"), body: .json(), separator: lit("\n"), suffix: lit("\n</tool_calls>"))],
                        triggers: [.word("<tool_calls>")]))
}
