extension ToolCallFormat {
    /// Nemotron: `<TOOLCALL>[...]</TOOLCALL>` (Nano v2) and `<tool_call><function=…>` (Nemotron 3).
    public static let nemotron = ToolCallFormat(rawValue: "nemotron")
}

extension ToolCallFamily {
    static let nemotron = ToolCallFamily(
        format: .nemotron, templateSigns: [["<TOOLCALL>"]],
        markers: [.block("<TOOLCALL>", JSONCallReaders.block("<TOOLCALL>", "</TOOLCALL>")), .toolCall],
        grammar: .forms([.jsonArray("<TOOLCALL>", "</TOOLCALL>")], triggers: [.word("<TOOLCALL>")]))
}
