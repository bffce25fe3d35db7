extension ToolCallFormat {
    /// Generic JSON: a bare call, `{"tool_call": {...}}` or `{"tool_calls": [...]}`.
    public static let generic = ToolCallFormat(rawValue: "generic")
}

extension ToolCallFamily {
    static let generic = ToolCallFamily(
        format: .generic,
        startReaders: [BareCallReaders.json, BareCallReaders.response],
        grammar: .forms([CallForm(prefix: #""{" space "\"tool_calls\"" space ":" space "[" space"#, body: .json(),
                                  separator: #""," space"#, suffix: #"space "]" space "}""#)],
                        triggers: [.start(#"\{(?: |\n{1,2}[ \t]{0,20})?"tool_calls""#)]))
}
