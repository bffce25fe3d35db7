extension ToolCallFamily {
    static let seedOSS = ToolCallFamily(
        format: .seedOSS, templateSigns: [["<seed:tool_call>"]],
        markers: [.block("<seed:tool_call>", XMLCallReaders.functionBlock("<seed:tool_call>", "</seed:tool_call>")),
                  .drop("<seed:eos>")],
        reasoning: Reasoning(open: "<seed:think>", close: "</seed:think>"),
        grammar: .forms([CallForm(open: lit("<seed:tool_call>\n"), body: .tagged(.functionTags(valuesOnOwnLines: false)),
                                  close: lit("</seed:tool_call>"), separator: lit("\n"))],
                        triggers: [.word("<seed:tool_call>")]))
}

extension ToolCallFormat {
    /// Seed-OSS: `<seed:tool_call><function=NAME><parameter=P>V</parameter></function></seed:tool_call>`.
    public static let seedOSS = ToolCallFormat(rawValue: "seed-oss")
}
