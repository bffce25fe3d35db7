extension ToolCallFormat {
    /// DeepSeek R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and fenced JSON.
    public static let deepSeekR1 = ToolCallFormat(rawValue: "deepseek-r1")
}

extension ToolCallFamily {
    static let deepSeekR1 = ToolCallFamily(
        format: .deepSeekR1, templateSigns: [["tool▁calls▁begin"]],
        markers: Marker.deepSeek,
        grammar: .forms([CallForm(prefix: lit(deepSeekTokens.calls),
                                  body: .framed(head: { lit("\(deepSeekTokens.call)function\(deepSeekTokens.separator)\($0)\n```json\n") },
                                                tail: lit("\n```" + deepSeekTokens.callEnd)),
                                  separator: lit("\n"), suffix: lit(deepSeekTokens.callsEnd))],
                        triggers: [.word(deepSeekTokens.calls)]))
}
