/// A rendered prompt cut into the template's own text and the spans that came from message
/// content (user turns, tool results, earlier assistant text and tool-call arguments), so that
/// control-token text inside content is tokenized as plain text and cannot forge a turn.
package struct PromptSpans {
    /// A piece of the prompt and whether it is content (tokenized without special tokens).
    package struct Piece: Equatable, Sendable {
        package var text: Substring
        package var isContent: Bool
    }

    /// What is printed when `allowSpecialTokensInContent` turns the spans off.
    package static let switchWarning = "allowSpecialTokensInContent is on: control-token text in messages and tool results (<|im_start|>, <|eot_id|>) becomes the model's control tokens, so a tool result or a file can forge a turn."

    package let text: String
    /// Content of the conversation, in the order the template writes it.
    package let content: [String]

    package init(text: String, messages: [Message]) {
        self.text = text
        content = messages.flatMap(Self.content(of:))
    }

    /// The text of a turn that came from outside: everything but the system prompt. A call's
    /// arguments count by their strings (keys and values), which templates write as JSON or as they are.
    static func content(of message: Message) -> [String] {
        switch message {
        case .system: []
        case .user(let text), .tool(let text, _, _): [text]
        case .assistant(let text, let calls, let reasoning):
            [reasoning, text].compactMap { $0 } + calls.flatMap { Self.strings(in: .object($0.arguments)) }
        }
    }

    /// The strings of a JSON value in the order it is written: keys before their values.
    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings(in:))
        case .object(let object): object.flatMap { [$0.key] + strings(in: $0.value) }
        default: []
        }
    }

    /// The pieces of the prompt. Only content that holds control-token text becomes its own
    /// span, so a conversation without such text tokenizes exactly as the whole prompt does.
    /// Content the template rewrote is found in the ``forms(of:)`` templates write; content the
    /// template dropped or rewrote otherwise is not found and gets no span.
    package func pieces(holdsControlText: (String) -> Bool) -> [Piece] {
        var pieces: [Piece] = []
        var cursor = text.startIndex
        for item in content where !item.isEmpty && holdsControlText(item) {
            let rest = text[cursor...]
            guard let found = Self.forms(of: item).lazy.compactMap({ rest.range(of: $0) }).first else { continue }
            if cursor < found.lowerBound { pieces.append(Piece(text: text[cursor..<found.lowerBound], isContent: false)) }
            pieces.append(Piece(text: text[found], isContent: true))
            cursor = found.upperBound
        }
        if cursor < text.endIndex || pieces.isEmpty { pieces.append(Piece(text: text[cursor...], isContent: false)) }
        return pieces
    }

    /// How templates write content: as it is, trimmed (`| trim`), or as a JSON string (`| tojson`).
    static func forms(of item: String) -> [String] {
        let trimmed = item.trimmingWhiteSpace
        return [item] + (trimmed.isEmpty || trimmed == item ? [] : [trimmed]) + [JSONValue.string(item).jsonText()]
    }
}

extension String {
    /// The string without white space or newlines at either end.
    fileprivate var trimmingWhiteSpace: String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
