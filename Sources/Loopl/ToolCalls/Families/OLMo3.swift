extension ToolCallFamily {
    static let olmo3 = ToolCallFamily(
        format: .olmo3, templateSigns: [["<function_calls>"]],
        markers: [.block("<function_calls>", PythonicCalls.olmo3)],
        grammar: .forms([CallForm(prefix: lit("<function_calls>\n"), body: .pythonic, separator: lit("\n"), suffix: lit("\n</function_calls>"))],
                        triggers: [.word("<function_calls>", token: false)]))
}

extension ToolCallFormat {
    /// OLMo 3: `<function_calls>` with one pythonic call per line, `</function_calls>`.
    public static let olmo3 = ToolCallFormat(rawValue: "olmo3")
}
