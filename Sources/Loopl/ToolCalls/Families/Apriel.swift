extension ToolCallFormat {
    /// Apriel: `<tool_calls>[...]</tool_calls>` and `[BEGIN FINAL RESPONSE]`.
    public static let apriel = ToolCallFormat(rawValue: "apriel")
}

extension ToolCallFamily {
    static let apriel = ToolCallFamily(
        format: .apriel, templateSigns: [["<tool_calls>"]],
        markers: [.toolCallsTag, .drop("[BEGIN FINAL RESPONSE]"), .drop("[END FINAL RESPONSE]")],
        grammar: .forms([.jsonArray("<tool_calls>", "</tool_calls>")], triggers: [.word("<tool_calls>")]))
}
