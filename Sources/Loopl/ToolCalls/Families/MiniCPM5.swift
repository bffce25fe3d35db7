extension ToolCallFormat {
    /// MiniCPM 5: `<function name="F"><param name="P">V</param></function>`.
    public static let miniCPM5 = ToolCallFormat(rawValue: "minicpm5")
}

extension ToolCallFamily {
    static let miniCPM5 = ToolCallFamily(
        format: .miniCPM5, templateSigns: [["<param name="]],
        markers: [.block("<function name=\"", XMLCallReaders.miniCPM)],
        grammar: .forms([CallForm(body: .tagged(TaggedParameters(
            callOpen: { lit("<function name=\"\($0)\">\n") }, callClose: lit("</function>"),
            parameterOpen: { name, _, _ in lit("<param name=\"\(name)\">") },
            parameterClose: lit("</param>\n"), delimiter: "</param>", trimmed: true)), separator: lit("\n"))],
                        triggers: [.word("<function name=\"", token: false)]))
}
