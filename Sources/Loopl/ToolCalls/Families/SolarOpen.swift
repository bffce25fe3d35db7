extension ToolCallFormat {
    /// Solar Open: `<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{...}<|tool_call:end|><|calls|>`.
    public static let solarOpen = ToolCallFormat(rawValue: "solar-open")
}

extension ToolCallFamily {
    static let solarOpen = ToolCallFamily(
        format: .solarOpen, templateSigns: [["<|tool_call:begin|>"]],
        markers: [.block("<|tool_calls|>", JSONCallReaders.solar), .block("<|tool_call:begin|>", JSONCallReaders.solar)],
        grammar: .forms([CallForm(prefix: lit("<|tool_calls|>"),
                                  body: .framed(head: { lit("<|tool_call:begin|>") + " [a-zA-Z0-9]{1,16} " + lit("<|tool_call:name|>\($0)<|tool_call:args|>") },
                                                tail: lit("<|tool_call:end|>")),
                                  suffix: lit("<|calls|>"))],
                        triggers: [.word("<|tool_calls|>")]))
}
