extension ToolCallFamily {
    static let hermes = ToolCallFamily(
        format: .hermes, templateSigns: [["<tool_call>"]],
        // A small model that read results as `<tool_response>` turns (the fallback for templates without
        // tools, ChatPrompt) may echo those tags around its answer: they are dropped.
        markers: [.toolCall, .bareFunction, .drop("<tool_response>"), .drop("</tool_response>")], startReaders: [BareCallReaders.json],
        grammar: .forms([CallForm(open: lit("<tool_call>\n"), body: .json(), close: lit("\n</tool_call>"), separator: lit("\n"))],
                        triggers: [.word("<tool_call>")], aliases: ["auto", "qwen", "qwen2_5", "qwen3"]))
}

extension ToolCallFormat {
    /// Hermes, Qwen 2.5 and Qwen 3: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    public static let hermes = ToolCallFormat(rawValue: "hermes")
}
