extension ToolCallFormat {
    /// Every named format, `.auto` first.
    public static var allCases: [ToolCallFormat] { [.auto] + ToolCallFamily.all.map(\.format) }

    /// The family a chat template writes calls in, from the markers in its source; `.auto` when
    /// no family's markers appear.
    public init(inferringFromTemplate source: String) {
        self = ToolCallFamily.byTemplatePrecedence.first { $0.isWritten(byTemplate: source) }?.format ?? .auto
    }
}
