/// What one tool call returned.
public struct ToolResult: Sendable, Hashable, Codable {
    /// The id of the call this answers.
    public var callId: String
    /// The tool's name.
    public var name: String
    /// True when the tool failed, timed out, was unknown or got invalid arguments.
    public var isError: Bool
    public var durationMs: Double
    /// What the model reads: the tool's output, or what went wrong.
    public var content: String

    public init(callId: String, name: String, isError: Bool, durationMs: Double, content: String) {
        self.callId = callId
        self.name = name
        self.isError = isError
        self.durationMs = durationMs
        self.content = content
    }
}

extension ToolResult {
    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary, with a note giving the
    /// full size when anything was cut.
    public static func cut(_ text: String, toBytes limit: Int) -> String { text.cut(toBytes: limit) }
}
