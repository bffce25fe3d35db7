extension ToolCallFamily {
    static let apriel = ToolCallFamily(
        format: .apriel, templateSigns: [["<tool_calls>"]],
        markers: [.toolCallsTag, .drop("[END FINAL RESPONSE]")], reasoningEnd: "[BEGIN FINAL RESPONSE]",
        grammar: .forms([.jsonArray("<tool_calls>", "</tool_calls>")], triggers: [.word("<tool_calls>")]))
}

extension ToolCallFormat {
    /// Apriel: `<tool_calls>[...]</tool_calls>`; thinking ends at `[BEGIN FINAL RESPONSE]`.
    public static let apriel = ToolCallFormat(rawValue: "apriel")
}
