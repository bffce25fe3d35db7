extension ToolCallFormat {
    /// Hunyuan 3: `<tool_calls:opensource><tool_call:opensource>NAME<tool_sep:opensource><arg_key:opensource>…`.
    public static let hunyuan3 = ToolCallFormat(rawValue: "hunyuan3")
}

extension ToolCallFamily {
    static let hunyuan3 = ToolCallFamily(
        format: .hunyuan3, templateSigns: [[":opensource", "<tool_sep"]],
        markers: [.block("<tool_calls:opensource>", XMLCallReaders.hunyuan), .block("<tool_call:opensource>", XMLCallReaders.hunyuan)],
        grammar: .forms([CallForm(prefix: lit("<tool_calls:opensource>"), body: .tagged(TaggedParameters(
            callOpen: { lit("<tool_call:opensource>\($0)<tool_sep:opensource>\n") }, callClose: lit("</tool_call:opensource>"),
            parameterOpen: { name, _, _ in lit("<arg_key:opensource>\(name)</arg_key:opensource>\n<arg_value:opensource>") },
            parameterClose: lit("</arg_value:opensource>\n"), delimiter: "</arg_value:opensource>")),
            separator: lit("\n"), suffix: lit("</tool_calls:opensource>"))],
                        triggers: [.word("<tool_calls:opensource>")]))
}
