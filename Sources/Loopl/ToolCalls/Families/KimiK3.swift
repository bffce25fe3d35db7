extension ToolCallFamily {
    static let kimiK3 = ToolCallFamily(
        format: .kimiK3, templateSigns: [["'<|open|>'", "'<|sep|>'"]],
        markers: [.block("<|open|>tools<|sep|>", TagTreeCallReaders.kimiK3),
                  .drop("<|open|>response<|sep|>"), .drop("<|close|>response<|sep|>"),
                  .drop("<|close|>message<|sep|>"), .drop("<|end_of_msg|>")],
        reasoning: Reasoning(open: "<|open|>think<|sep|>", close: "<|close|>think<|sep|>"),
        grammar: .forms([CallForm(prefix: lit("<|open|>tools<|sep|>"), body: .tagged(TaggedParameters(
            callOpen: { lit("<|open|>call tool=\"\($0)\" index=\"") + #" [1-9] [0-9]? "# + lit("\"<|sep|>") },
            callClose: lit("<|close|>call<|sep|>"),
            parameterOpen: { name, isText, schema in
                lit("<|open|>argument key=\"\(name)\" type=\"\(isText ? "string" : schema["type"]?.stringValue ?? "json")\"<|sep|>")
            },
            parameterClose: lit("<|close|>argument<|sep|>"), delimiter: "<|close|>argument<|sep|>")),
            suffix: lit("<|close|>tools<|sep|>"))],
                        triggers: [.word("<|open|>tools<|sep|>", token: false)]))
}

extension ToolCallFormat {
    /// Kimi K3: `<|open|>tools<|sep|><|open|>call tool="F" index="1"<|sep|><|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>…`.
    public static let kimiK3 = ToolCallFormat(rawValue: "kimi-k3")
}
