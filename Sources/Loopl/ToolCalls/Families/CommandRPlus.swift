extension ToolCallFamily {
    static let commandRPlus = ToolCallFamily(
        format: .commandRPlus, templateSigns: [["Action:", "tool_name"]],
        markers: [.block("Action:", JSONCallReaders.commandRPlus),
                  .drop("<|CHATBOT_TOKEN|>"), .drop("<|END_OF_TURN_TOKEN|>")],
        grammar: .forms([.jsonArray("Action: ```json\n", "\n```", body: .json(nameKey: "tool_name", argumentsKey: "parameters"))],
                        triggers: [.word("Action:", token: false)]))
}

extension ToolCallFormat {
    /// Command R+: ``Action: ```json [...] ``` ``; its `<|CHATBOT_TOKEN|>` response marker is removed.
    public static let commandRPlus = ToolCallFormat(rawValue: "command-r-plus")
}
