extension ToolCallFormat {
    /// MiniMax M2: `<minimax:tool_call><invoke name="F"><parameter name="P">V</parameter></invoke>`.
    public static let minimaxM2 = ToolCallFormat(rawValue: "minimax-m2")
}

extension ToolCallFamily {
    static let minimaxM2 = ToolCallFamily(
        format: .minimaxM2, templateSigns: [["<minimax:tool_call>"]],
        markers: [.block("<minimax:tool_call>", XMLCallReaders.invokeBlock(
            prefix: "", open: "<minimax:tool_call>", close: "</minimax:tool_call>"))],
        grammar: .forms([CallForm(prefix: lit("<minimax:tool_call>\n"), body: .tagged(.invoke("")), suffix: lit("</minimax:tool_call>"))],
                        triggers: [.word("<minimax:tool_call>")]))
}
