extension ToolCallFormat {
    /// Command R7B: `<|START_ACTION|>[...]<|END_ACTION|>`; thinking in `<|START_THINKING|>`.
    public static let commandR7B = ToolCallFormat(rawValue: "command-r7b")
}

extension ToolCallFamily {
    static let commandR7B = ToolCallFamily(
        format: .commandR7B, templateSigns: [["<|START_ACTION|>"]],
        markers: [.block("<|START_ACTION|>", JSONCallReaders.block("<|START_ACTION|>", "<|END_ACTION|>")),
                  .drop("<|START_RESPONSE|>"), .drop("<|END_RESPONSE|>"), .drop("<|START_TEXT|>"), .drop("<|END_TEXT|>")],
        reasoning: Reasoning(open: "<|START_THINKING|>", close: "<|END_THINKING|>"),
        grammar: .forms([.jsonArray("<|START_ACTION|>", "<|END_ACTION|>", body: .json(
            nameKey: "tool_name", argumentsKey: "parameters",
            before: #""\"tool_call_id\"" space ":" space "\"" [0-9]{1,3} "\"" "," space"#))],
                        triggers: [.word("<|START_ACTION|>")]))
}
