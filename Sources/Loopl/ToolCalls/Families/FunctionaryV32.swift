extension ToolCallFamily {
    static let functionaryV32 = ToolCallFamily(
        format: .functionaryV32, templateSigns: [[">>>", "all"]],
        markers: [.block(">>>", ChannelCallReaders.functionaryRecipient)], startReaders: [ChannelCallReaders.functionaryStart],
        autoStartReaders: [ChannelCallReaders.functionaryFirstCall],
        // The prompt ends with `>>>`, so the first call starts at the name.
        grammar: .forms([CallForm(prefix: #"">>>"?"#, body: .framed(head: { lit("\($0)\n") }), separator: lit(">>>"))],
                        triggers: [.toolName(before: "", after: "\n", atStart: true),
                                   .toolName(before: ">>>", after: "\n", atStart: false)]))
}

extension ToolCallFormat {
    /// Functionary v3.2: `>>>NAME\n{...}`, with `all` for text.
    public static let functionaryV32 = ToolCallFormat(rawValue: "functionary-v3.2")
}
