extension ToolCallFamily {
    static let longCat = ToolCallFamily(
        format: .longCat, templateSigns: [["<longcat_tool_call>"]],
        markers: [.block("<longcat_tool_call>", JSONCallReaders.block("<longcat_tool_call>", "</longcat_tool_call>"))],
        grammar: .forms([CallForm(open: lit("<longcat_tool_call>"), body: .json(), close: lit("</longcat_tool_call>"), separator: lit("\n"))],
                        triggers: [.word("<longcat_tool_call>")]))
}

extension ToolCallFormat {
    /// LongCat: `<longcat_tool_call>{"name": ..., "arguments": {...}}</longcat_tool_call>`.
    public static let longCat = ToolCallFormat(rawValue: "longcat")
}
