extension ToolCallFamily {
    static let gptOSS = ToolCallFamily(
        format: .gptOSS, templateSigns: [["<|channel|>"]],
        markers: [.block("<|channel|>", ChannelCallReaders.harmony), .block("<|start|>", ChannelCallReaders.harmony),
                  .block("to=functions.", ChannelCallReaders.harmony),
                  .drop("<|end|>"), .drop("<|return|>"), .drop("<|call|>")],
        reasoningClose: "<|end|>",
        grammar: .forms([CallForm(body: .framed(head: { lit("<|channel|>commentary to=functions.\($0) <|constrain|>json<|message|>") },
                                                tail: lit("<|call|>")), separator: nil)],
                        triggers: [.word("<|channel|>commentary to=functions.", token: false)],
                        reasoning: Reasoning(open: "<|channel|>analysis<|message|>", close: "<|end|><|start|>assistant", gap: "")))
}

extension ToolCallFormat {
    /// GPT-OSS harmony: `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`.
    public static let gptOSS = ToolCallFormat(rawValue: "gpt-oss")
}
