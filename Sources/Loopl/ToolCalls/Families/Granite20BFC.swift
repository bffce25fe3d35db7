extension ToolCallFamily {
    static let granite20BFC = ToolCallFamily(
        format: .granite20BFC, templateSigns: [["<function_call>", "<|function_call_library|>"]],
        markers: [.block("<function_call>", JSONCallReaders.block("<function_call>", nil))],
        grammar: .forms([CallForm(open: lit("<function_call> "), body: .json(), separator: lit("\n"))],
                        triggers: [.word("<function_call>", token: false)], aliases: ["granite_20b_fc"]))
}

extension ToolCallFormat {
    /// Granite 20B function calling: `<function_call> {"name": ..., "arguments": {...}}`, one or several.
    public static let granite20BFC = ToolCallFormat(rawValue: "granite-20b-fc")
}
