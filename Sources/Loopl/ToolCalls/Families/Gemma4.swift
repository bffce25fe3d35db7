extension ToolCallFamily {
    static let gemma4 = ToolCallFamily(
        format: .gemma4, templateSigns: [["<|tool_call>"]],
        markers: [.block("<|tool_call>", GemmaCallReaders.block(open: "<|tool_call>", close: "<tool_call|>", quote: "<|\"|>"))],
        reasoning: Reasoning(open: "<|channel>thought", close: "<channel|>", anywhere: true),
        grammar: .unavailable(because: "its values are written in Gemma's own syntax (bare keys, strings between quote tokens), not JSON"))
}

extension ToolCallFormat {
    /// Gemma 4: `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>`.
    public static let gemma4 = ToolCallFormat(rawValue: "gemma4")
}
