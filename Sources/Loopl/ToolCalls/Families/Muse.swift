extension ToolCallFormat {
    /// Muse Glimmer: `to=NAME<|message|><atem:function_calls><atem:invoke name="F">…`; `to=self` is thinking.
    public static let muse = ToolCallFormat(rawValue: "muse")
}

extension ToolCallFamily {
    static let muse = ToolCallFamily(
        format: .muse, templateSigns: [["<atem:"]],
        markers: [
            .block("<atem:function_calls>", XMLCallReaders.invokeBlock(
                prefix: "atem:", open: "<atem:function_calls>", close: "</atem:function_calls>")),
            .block("to=", ChannelCallReaders.museHeader), .drop("<|start|>assistant"), .drop("<|message|>"),
            .drop("<|eom|>"), .drop("<|eot|>"),
        ],
        inAuto: false,
        grammar: .forms([CallForm(prefix: lit("<atem:function_calls>\n"), body: .tagged(.invoke("atem:")),
                                  suffix: lit("</atem:function_calls>"))],
                        triggers: [.word("<atem:function_calls>", token: false)]))
}
