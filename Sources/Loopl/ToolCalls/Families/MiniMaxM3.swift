extension ToolCallFamily {
    static let minimaxM3 = ToolCallFamily(
        format: .minimaxM3, templateSigns: [["]<]minimax[>["]],
        markers: [.block("]<]minimax[>[<tool_call>", NestedXMLCallReaders.minimaxM3), .drop("[e~[")],
        reasoning: Reasoning(open: "<mm:think>", close: "</mm:think>"),
        grammar: .unavailable(because: "its arguments nest as XML tags whose bare text values are typed by guessing"))
}

extension ToolCallFormat {
    /// MiniMax M3: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="F">]<]minimax[>[<P>V]<]minimax[>[</P>…`, values nested as XML.
    public static let minimaxM3 = ToolCallFormat(rawValue: "minimax-m3")
}
