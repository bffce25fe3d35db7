extension ToolCallFormat {
    /// Every named format, `.auto` first.
    public static var allCases: [ToolCallFormat] { [.auto] + ToolCallFamily.all.map(\.format) }

    /// The format named `name` (one of ``allCases``); any other name is an error that lists them,
    /// never a silent `.auto`.
    public static func named(_ name: String) throws(LooplError) -> ToolCallFormat {
        guard let format = allCases.first(where: { $0.rawValue == name }) else {
            throw LooplError(.invalidRequest, "'\(name)' is not a tool-call format; use one of \(allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return format
    }

    /// The family a chat template writes calls in, from the markers in its source; `.auto` when
    /// no family's markers appear.
    public init(inferringFromTemplate source: String) {
        self = ToolCallFamily.byTemplatePrecedence.first { $0.isWritten(byTemplate: source) }?.format ?? .auto
    }
}
