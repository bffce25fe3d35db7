extension ToolCallFormat {
    /// Jamba: `<tool_calls>[...]</tool_calls>`.
    public static let jamba = ToolCallFormat(rawValue: "jamba")
}

extension ToolCallFamily {
    static let jamba = ToolCallFamily(
        format: .jamba,
        markers: [.toolCallsTag],
        grammar: .forms([.jsonArray("<tool_calls>", "</tool_calls>")], triggers: [.word("<tool_calls>")]))
}
