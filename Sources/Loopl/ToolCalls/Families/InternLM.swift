extension ToolCallFormat {
    /// InternLM 2: `<|action_start|><|plugin|>{...}<|action_end|>`.
    public static let internLM = ToolCallFormat(rawValue: "internlm")
}

extension ToolCallFamily {
    static let internLM = ToolCallFamily(
        format: .internLM, templateSigns: [["<|action_start|>"]],
        markers: [.block("<|action_start|><|plugin|>", JSONCallReaders.block("<|action_start|><|plugin|>", "<|action_end|>"))],
        grammar: .forms([CallForm(open: lit("<|action_start|><|plugin|>\n"), body: .json(argumentsKey: "parameters"),
                                  close: lit("<|action_end|>"), separator: lit("\n"))],
                        triggers: [.word("<|action_start|>")]))
}
