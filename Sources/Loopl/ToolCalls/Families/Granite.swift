extension ToolCallFormat {
    /// Granite 3.x: `<|tool_call|>[{...}]`; Granite 4: `<tool_call>`.
    public static let granite = ToolCallFormat(rawValue: "granite")
}

extension ToolCallFamily {
    static let granite = ToolCallFamily(
        format: .granite, templateSigns: [["<|tool_call|>"]],
        markers: [.pipeToolCall, .toolCall, .drop("<response>"), .drop("</response>")],
        grammar: .forms([.jsonArray("<|tool_call|>", "")], triggers: [.word("<|tool_call|>")]))
}
