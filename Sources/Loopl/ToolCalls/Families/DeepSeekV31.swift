extension ToolCallFormat {
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`.
    public static let deepSeekV31 = ToolCallFormat(rawValue: "deepseek-v3.1")
}

extension ToolCallFamily {
    static let deepSeekV31 = ToolCallFamily(
        format: .deepSeekV31,
        templateSigns: [["tool▁call▁begin｜>' + tool['function']['name']"], ["tool▁call▁begin｜>'+ tool['function']['name']"]],
        markers: Marker.deepSeek,
        grammar: .forms([CallForm(prefix: lit(deepSeekTokens.calls),
                                  body: .framed(head: { lit("\(deepSeekTokens.call)\($0)\(deepSeekTokens.separator)") },
                                                tail: lit(deepSeekTokens.callEnd)),
                                  suffix: lit(deepSeekTokens.callsEnd))],
                        triggers: [.word(deepSeekTokens.calls)]))
}
