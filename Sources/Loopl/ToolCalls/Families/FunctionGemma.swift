extension ToolCallFormat {
    /// FunctionGemma: `<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>`.
    public static let functionGemma = ToolCallFormat(rawValue: "functiongemma")
}

extension ToolCallFamily {
    static let functionGemma = ToolCallFamily(
        format: .functionGemma, templateSigns: [["<start_function_call>"]],
        markers: [.block("<start_function_call>", GemmaCallReaders.block(
            open: "<start_function_call>", close: "<end_function_call>", quote: "<escape>"))],
        grammar: .unavailable(because: "its values are written in Gemma's own syntax (bare keys, strings between `<escape>`), not JSON"))
}
