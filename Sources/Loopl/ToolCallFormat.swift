/// The name of a family of tool-call markup that ``ToolCallParser`` understands.
public struct ToolCallFormat: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Recognise the family from the text itself.
    public static let auto = ToolCallFormat(rawValue: "auto")
    /// Hermes, Qwen 2.5 and Qwen 3: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.
    public static let hermes = ToolCallFormat(rawValue: "hermes")

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
