extension ToolCallFormat {
    /// Functionary v3.1: `<function=NAME>{...}</function>` and `<|python_tag|>` code.
    public static let functionaryV31 = ToolCallFormat(rawValue: "functionary-v3.1")
}

extension ToolCallFamily {
    static let functionaryV31 = ToolCallFamily(
        format: .functionaryV31, templateSigns: [["<function="]],
        markers: [.bareFunction, .pythonTag] + Marker.llamaEnds,
        grammar: .forms([CallForm(body: .framed(head: { lit("<function=\($0)>") }, tail: lit("</function>")))],
                        triggers: [.word("<function=", token: false)]))
}
