extension ToolCallFormat {
    /// DeepSeek V3.2: `<｜DSML｜function_calls>` with `invoke` and `parameter` tags.
    public static let deepSeekV32 = ToolCallFormat(rawValue: "deepseek-v3.2")
}

extension ToolCallFamily {
    static let deepSeekV32 = ToolCallFamily(
        format: .deepSeekV32, templateSigns: [["DSML"]],
        markers: Marker.deepSeek + [
            .block("<｜DSML｜function_calls>", XMLCallReaders.invokeBlock(
                prefix: "｜DSML｜", open: "<｜DSML｜function_calls>", close: "</｜DSML｜function_calls>")),
            .block("<｜DSML｜tool_calls>", XMLCallReaders.invokeBlock(
                prefix: "｜DSML｜", open: "<｜DSML｜tool_calls>", close: "</｜DSML｜tool_calls>")),
        ],
        grammar: .forms([CallForm(prefix: lit("<｜DSML｜function_calls>\n"), body: .tagged(TaggedParameters(
            callOpen: { lit("<｜DSML｜invoke name=\"\($0)\">\n") }, callClose: lit("</｜DSML｜invoke>\n"),
            parameterOpen: { name, isText, _ in lit("<｜DSML｜parameter name=\"\(name)\" string=\"\(isText)\">") },
            parameterClose: lit("</｜DSML｜parameter>\n"), delimiter: "</｜DSML｜parameter>")),
            suffix: lit("</｜DSML｜function_calls>"))],
                        triggers: [.word("<｜DSML｜function_calls>", token: false)]))
}
