extension ToolCallFormat {
    /// GLM 4.5 and later: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`.
    public static let glm45 = ToolCallFormat(rawValue: "glm-4.5")
}

extension ToolCallFamily {
    static let glm45 = ToolCallFamily(
        format: .glm45, templateSigns: [["<arg_key>"]],
        markers: [.toolCall],
        grammar: .forms([CallForm(open: lit("<tool_call>"), body: .tagged(TaggedParameters(
            callOpen: { lit("\($0)\n") }, callClose: "",
            parameterOpen: { name, _, _ in lit("<arg_key>\(name)</arg_key>\n<arg_value>") },
            parameterClose: lit("</arg_value>\n"), delimiter: "</arg_value>")),
            close: lit("</tool_call>"), separator: lit("\n"))],
                        triggers: [.word("<tool_call>")]))
}
