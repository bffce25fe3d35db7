extension ToolCallFamily {
    static let llama3 = ToolCallFamily(
        format: .llama3, templateSigns: [["<|python_tag|>"], ["<|start_header_id|>", "\"parameters\""]],
        markers: [.pythonTag, .block("{", BareCallReaders.trailingJSON)] + Marker.llamaEnds,
        startReaders: [BareCallReaders.json, PythonicCalls.bare],
        grammar: .forms([CallForm(body: .json(argumentsKey: "parameters"), separator: nil)],
                        triggers: [.start(#"\{(?: |\n{1,2}[ \t]{0,20})?"name"(?: |\n{1,2}[ \t]{0,20})?:(?: |\n{1,2}[ \t]{0,20})?""#)],
                        aliases: ["llama3_x", "llama"]))
}

extension ToolCallFormat {
    /// Llama 3.x: bare `{"name": ..., "parameters": {...}}` (at the start, or ending the text after prose) and `<|python_tag|>`.
    public static let llama3 = ToolCallFormat(rawValue: "llama3")
}
