extension ToolCallFormat {
    /// Pythonic calls, `[f(a=1), g()]` (Llama 3.2 pythonic, Llama 4 `<|python_start|>`).
    public static let pythonic = ToolCallFormat(rawValue: "pythonic")
}

extension ToolCallFamily {
    static let pythonic = ToolCallFamily(
        format: .pythonic, templateSigns: [["<|python_start|>"], ["func_name1("]],
        markers: [.block("<|python_start|>", PythonicCalls.llama4)], startReaders: [PythonicCalls.bare],
        grammar: .forms([CallForm(prefix: lit("["), body: .pythonic, separator: lit(", "), suffix: lit("]"))],
                        triggers: [.toolName(before: #"\["#, after: #"\("#, atStart: true)]))
}
