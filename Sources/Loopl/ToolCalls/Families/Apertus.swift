extension ToolCallFormat {
    /// Apertus: `<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|>`.
    public static let apertus = ToolCallFormat(rawValue: "apertus")
}

extension ToolCallFamily {
    static let apertus = ToolCallFamily(
        format: .apertus, templateSigns: [["<|tools_prefix|>"]],
        markers: [.block("<|tools_prefix|>", JSONCallReaders.apertus)],
        reasoning: Reasoning(open: "<|inner_prefix|>", close: "<|inner_suffix|>"),
        grammar: .forms([.jsonArray("<|tools_prefix|>", "<|tools_suffix|>", body: .framed(
            head: { #""{" space "# + lit(JSONValue.string($0).jsonText()) + #" space ":" space"# }, tail: #"space "}""#))],
                        triggers: [.word("<|tools_prefix|>")]))
}
