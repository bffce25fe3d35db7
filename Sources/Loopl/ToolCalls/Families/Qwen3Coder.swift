extension ToolCallFamily {
    static let qwen3Coder = ToolCallFamily(
        format: .qwen3Coder, templateSigns: [["<function=", "<parameter="]],
        markers: [.toolCall, .bareFunction],
        grammar: .forms([CallForm(open: lit("<tool_call>\n"), body: .tagged(.functionTags(valuesOnOwnLines: true)),
                                  close: lit("</tool_call>"), separator: lit("\n"))],
                        triggers: [.word("<tool_call>")], aliases: ["qwen3coder", "qwen3_xml", "qwen3_5"]))
}

extension ToolCallFormat {
    /// Qwen3-Coder, Qwen3.5: `<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`.
    public static let qwen3Coder = ToolCallFormat(rawValue: "qwen3-coder")
}
