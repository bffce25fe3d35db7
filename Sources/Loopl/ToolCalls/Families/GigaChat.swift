extension ToolCallFamily {
    static let gigaChat = ToolCallFamily(
        format: .gigaChat, templateSigns: [["<|function_call|>"], ["function call", "<|role_sep|>"]],
        markers: [.block("<|function_call|>", JSONCallReaders.block("<|function_call|>", nil)),
                  .block("function call<|role_sep|>", JSONCallReaders.block("function call<|role_sep|>", nil)),
                  .drop("<|message_sep|>"), .block("</s>", JSONCallReaders.endOfText("</s>"))],
        grammar: .forms([CallForm(prefix: lit("<|function_call|>"), body: .json(), separator: nil)],
                        triggers: [.word("<|function_call|>")]))
}

extension ToolCallFormat {
    /// GigaChat 3: `<|function_call|>{...}` (3.1) and `function call<|role_sep|>{...}` (3.0).
    public static let gigaChat = ToolCallFormat(rawValue: "gigachat")
}
