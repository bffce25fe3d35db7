extension ToolCallFormat {
    /// Command R+: ``Action: ```json [...] ``` ``.
    public static let commandRPlus = ToolCallFormat(rawValue: "command-r-plus")
}

extension ToolCallFamily {
    static let commandRPlus = ToolCallFamily(
        format: .commandRPlus, templateSigns: [["Action:", "tool_name"]],
        markers: [.block("Action:", JSONCallReaders.commandRPlus)],
        grammar: .forms([.jsonArray("Action: ```json\n", "\n```", body: .json(nameKey: "tool_name", argumentsKey: "parameters"))],
                        triggers: [.word("Action:", token: false)]))
}
