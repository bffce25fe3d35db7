/// Lifts tool calls out of a model's text and returns the text the user should see.
public struct ToolCallParser: Sendable {
    /// What a model's text contains.
    public struct Result: Sendable, Hashable {
        /// The visible text, markup removed.
        public var content: String
        /// The calls, in the order written.
        public var toolCalls: [ToolCall]

        public init(content: String, toolCalls: [ToolCall]) {
            self.content = content
            self.toolCalls = toolCalls
        }
    }

    public let format: ToolCallFormat

    public init(format: ToolCallFormat = .auto) {
        self.format = format
    }

    /// Parses a complete turn.
    public func parse(_ text: String) -> Result {
        var content = ""
        var calls: [ToolCall] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "<tool_call>") {
            content += rest[..<open.lowerBound]
            let body = rest[open.upperBound...]
            let close = body.firstRange(of: "</tool_call>")
            let json = close.map { body[..<$0.lowerBound] } ?? body
            if let value = try? JSONValue(parsing: String(json).trimmingWhitespace()),
               let call = try? ToolCall(templateValue: value) {
                calls.append(call)
            } else {
                content += rest[open.lowerBound..<(close?.upperBound ?? rest.endIndex)]
            }
            rest = close.map { body[$0.upperBound...] } ?? body[body.endIndex...]
        }
        content += rest
        return Result(content: calls.isEmpty ? content : content.trimmingWhitespace(), toolCalls: calls)
    }
}
