/// Lifts tool calls out of a model's text and returns the text the user should see.
///
/// Use ``parse(_:)`` on a whole turn, or ``feed(_:)`` each streamed delta and ``finish()`` at the
/// end: the events of any split of a text add up to the same result. Visible text is released as
/// soon as it cannot be markup; a call as soon as it is complete. Thinking (`<think>…</think>` and
/// each family's own channel) is returned as reasoning; it is read for calls only when no closing
/// marker ends it. When ``toolNames`` is set, a call to any other name is rejected and its text
/// stays in the content.
package struct ToolCallParser: Sendable {
    /// What a model's text contains.
    package struct Result: Sendable, Hashable {
        /// The visible text, markup removed, without leading or trailing spaces and line breaks.
        package var content: String
        /// The calls, in the order written.
        package var toolCalls: [ToolCall]
        /// The thinking, when there was any.
        package var reasoning: String?
        /// Calls that were not accepted (their text is in `content`).
        package var rejected: [RejectedCall]

        package init(content: String, toolCalls: [ToolCall], reasoning: String? = nil, rejected: [RejectedCall] = []) {
            self.content = content
            self.toolCalls = toolCalls
            self.reasoning = reasoning
            self.rejected = rejected
        }

        /// The result as `loopl parse` prints it: `content`, `tool_calls` (each `name` and
        /// `arguments`), and `reasoning` and `rejected` when there are any.
        package var jsonValue: JSONValue {
            var object: JSONObject = [
                "content": .string(content),
                "tool_calls": .array(toolCalls.map { ["name": .string($0.name), "arguments": .object($0.arguments)] }),
            ]
            if let reasoning { object["reasoning"] = .string(reasoning) }
            if !rejected.isEmpty {
                object["rejected"] = .array(rejected.map {
                    ["name": .string($0.name), "arguments": .object($0.arguments), "reason": .string($0.reason)]
                })
            }
            return .object(object)
        }
    }

    /// A call that was written but not accepted.
    package struct RejectedCall: Sendable, Hashable {
        package var name: String
        package var arguments: JSONObject
        /// Why it was not accepted, in a sentence.
        package var reason: String
        /// The markup the call came in (kept in the content, but for a call to a model's built-in tool).
        package var text: String

        package init(name: String, arguments: JSONObject, reason: String, text: String) {
            self.name = name
            self.arguments = arguments
            self.reason = reason
            self.text = text
        }
    }

    /// A piece of a streamed turn.
    package enum Event: Sendable, Hashable {
        /// Visible text.
        case text(String)
        /// Thinking.
        case reasoning(String)
        /// A complete, accepted call.
        case toolCall(ToolCall)
        /// A complete call to an undeclared tool; its text comes as `.text` just before, but for a
        /// call to one of the model's built-in tools (harmony's `python`, `browser.*`), whose markup is
        /// dropped.
        case rejected(RejectedCall)
    }

    package let format: ToolCallFormat
    /// The declared tools; nil accepts any name.
    package let toolNames: Set<String>?
    private var stream: ToolCallStream

    /// - Parameters:
    ///   - format: the markup to read; `.auto` reads all families.
    ///   - toolNames: the declared tools; calls to other names are rejected. nil accepts any.
    ///   - startsInReasoning: whether the prompt already opened thinking (a template that ends its
    ///     generation prompt with `<think>`). true: the text is thinking until the format's closing
    ///     marker (`</think>` under `.auto`). false: it did not, and the text streams at once. nil
    ///     (unknown): text before a first bare closing marker is thinking, so the start of the turn
    ///     is held until that marker, a call, or the end.
    package init(format: ToolCallFormat = .auto, toolNames: Set<String>? = nil, startsInReasoning: Bool? = nil) {
        self.init(format: format, toolNames: toolNames, schemas: [:], startsInReasoning: startsInReasoning)
    }

    /// A parser that accepts only `tools`, and uses their parameter schemas where a family writes
    /// values as bare text (Qwen3-Coder, GLM, MiniMax, DeepSeek V3.2): a parameter declared as a
    /// string keeps its text even when it reads as a number.
    package init(format: ToolCallFormat = .auto, tools: [ToolSpec], startsInReasoning: Bool? = nil) {
        var schemas: [String: JSONObject] = [:]
        for tool in tools { schemas[tool.name] = tool.parameters["properties"]?.objectValue ?? [:] }
        self.init(format: format, toolNames: Set(tools.map(\.name)), schemas: schemas, startsInReasoning: startsInReasoning)
    }

    private init(format: ToolCallFormat, toolNames: Set<String>?, schemas: [String: JSONObject], startsInReasoning: Bool?) {
        self.format = format
        self.toolNames = toolNames
        self.schemas = schemas
        self.startsInReasoning = startsInReasoning
        self.stream = ToolCallStream(markers: MarkerTable.of(format), toolNames: toolNames, schemas: schemas,
                                     startsInReasoning: startsInReasoning)
    }

    private let schemas: [String: JSONObject]
    private let startsInReasoning: Bool?

    /// Parses a complete turn.
    package func parse(_ text: String) -> Result {
        var parser = ToolCallParser(format: format, toolNames: toolNames, schemas: schemas, startsInReasoning: startsInReasoning)
        return ToolCallParser.result(of: parser.feed(text) + parser.finish())
    }

    /// How many bytes the scans for markers and the readers' searches examine to parse `text`
    /// handed in `chunk` bytes at a time: the work that must grow linearly with the text.
    package func examinedBytes(parsing text: String, chunk: Int = .max) -> Int {
        var stream = ToolCallStream(markers: MarkerTable.of(format), toolNames: toolNames, schemas: schemas,
                                    startsInReasoning: startsInReasoning)
        var rest = Substring(text)
        while !rest.isEmpty {
            _ = stream.feed(String(rest.prefix(chunk)))
            rest = rest.dropFirst(chunk)
        }
        _ = stream.finish()
        return stream.examinedBytes
    }

    /// Adds streamed text; returns what is now certain.
    package mutating func feed(_ delta: String) -> [Event] {
        stream.feed(delta)
    }

    /// Ends the stream: what was held back is decided (a call missing only its closing tag is a call;
    /// anything else incomplete is text). The parser is then ready for a new turn.
    package mutating func finish() -> [Event] {
        defer {
            stream = ToolCallStream(markers: MarkerTable.of(format), toolNames: toolNames, schemas: schemas,
                                    startsInReasoning: startsInReasoning)
        }
        return stream.finish()
    }

    /// The result that a sequence of events adds up to.
    package static func result(of events: [Event]) -> Result {
        var content = ""
        var reasoning: String?
        var calls: [ToolCall] = []
        var rejected: [RejectedCall] = []
        for event in events {
            switch event {
            case .text(let text): if content.isEmpty { content = text } else { content += text }
            case .reasoning(let text): reasoning = (reasoning ?? "") + text
            case .toolCall(let call): calls.append(call)
            case .rejected(let call): rejected.append(call)
            }
        }
        let trimmedReasoning = reasoning.map(trimmed)
        var visible = trimmed(content)
        if !calls.isEmpty, visible.hasPrefix("```"), isOnlyFences(visible) { visible = "" }
        return Result(content: visible, toolCalls: calls,
                      reasoning: trimmedReasoning?.isEmpty == false ? trimmedReasoning : nil, rejected: rejected)
    }

    /// The text without leading and trailing spaces and line breaks; not copied when there are none.
    private static func trimmed(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last,
              ByteCursor.isSpace(first) || ByteCursor.isSpace(last) else { return text }
        return text.trimmingWhitespace()
    }

    /// True for text made of code-fence lines only (what is left when a fenced call is lifted out).
    private static func isOnlyFences(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { line in
            let trimmed = line.trimmingPrefix(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
            return trimmed.hasPrefix("```") && trimmed.dropFirst(3).allSatisfy { $0.isLetter || $0.isNumber || $0 == " " || $0 == "\r" }
        }
    }

    /// Whether a rendered prompt leaves thinking open at its end (`<think>` or a family's own
    /// opening marker: `[THINK]`, `<seed:think>`, ...), so that the model's text starts inside
    /// thinking; pass the answer as `startsInReasoning`.
    package static func promptOpensReasoning(_ prompt: String) -> Bool {
        let trimmed = prompt.trimmingWhitespace()
        return reasoningOpeners.contains { trimmed.hasSuffix($0) }
    }

    private static let reasoningOpeners = ["<think>"] + ToolCallFamily.all.compactMap(\.reasoning?.open)
}
