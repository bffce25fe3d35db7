extension ToolCallFormat {
    /// Mistral: `[TOOL_CALLS][{...}]` and `[TOOL_CALLS]NAME[ARGS]{...}`; thinking in `[THINK]`.
    public static let mistral = ToolCallFormat(rawValue: "mistral")
}

extension ToolCallFamily {
    static let mistral = ToolCallFamily(
        format: .mistral, templateSigns: [["[TOOL_CALLS]"]],
        markers: [.block("[TOOL_CALLS]", JSONCallReaders.mistral)], startReaders: [BareCallReaders.json],
        reasoning: Reasoning(open: "[THINK]", close: "[/THINK]"),
        grammar: .forms([.jsonArray("[TOOL_CALLS]", "", body: .json(after: #"( "," space "\"id\"" space ":" space "\"" [a-zA-Z0-9]{9} "\"" )?"#)),
                         CallForm(body: .framed(head: { lit("[TOOL_CALLS]\($0)[ARGS]") }))],
                        triggers: [.word("[TOOL_CALLS]")], aliases: ["mistral_nemo"]))
}
