/// The name of a family of tool-call markup that ``ToolCallParser`` understands.
///
/// Each family's name is declared in its own file under `ToolCalls/Families/`, with the rest of what
/// Loopl knows of the family; the names and the template inference are in `ToolCallFormat+Families.swift`.
public struct ToolCallFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Recognise the family from the text itself: every family's tagged markup, plus bare JSON
    /// and pythonic calls at the start of the text.
    public static let auto = ToolCallFormat(rawValue: "auto")
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
