extension ToolCallFormat {
    /// FireFunction v2: `functools[{...}]`.
    public static let fireFunction = ToolCallFormat(rawValue: "firefunction")
}

extension ToolCallFamily {
    static let fireFunction = ToolCallFamily(
        format: .fireFunction, templateSigns: [["functools["]],
        markers: [.functools],
        grammar: .forms([.jsonArray("functools", "")], triggers: [.word("functools[", token: false)]))
}
