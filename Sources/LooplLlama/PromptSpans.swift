import Loopl

/// A rendered prompt cut into the template's own text and the spans that came from message
/// content (user turns, tool results, earlier assistant text), so that control-token text inside
/// content is tokenized as plain text and cannot forge a turn.
struct PromptSpans {
    /// A piece of the prompt and whether it is content (tokenized without special tokens).
    struct Piece: Equatable {
        var text: Substring
        var isContent: Bool
    }

    let text: String
    /// Content of the conversation, in the order the template writes it.
    let content: [String]

    init(text: String, messages: [Message]) {
        self.text = text
        content = messages.flatMap(Self.content(of:))
    }

    /// The text of a turn that came from outside: everything but the system prompt.
    static func content(of message: Message) -> [String] {
        switch message {
        case .system: []
        case .user(let text), .tool(let text, _, _): [text]
        case .assistant(let text, _, let reasoning): [reasoning, text].compactMap { $0 }
        }
    }

    /// The pieces of the prompt. Only content that holds control-token text becomes its own
    /// span, so a conversation without such text tokenizes exactly as the whole prompt does.
    /// Content the template rewrote is found in the ``forms(of:)`` templates write; content the
    /// template dropped or rewrote otherwise is not found and gets no span.
    func pieces(holdsControlText: (String) -> Bool) -> [Piece] {
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

    /// The prompt's tokens: special tokens parsed in the template's text only; BOS as the model asks.
    func tokens(_ weights: LlamaWeights) -> [Int32] {
        let spans = pieces { item in
            weights.tokenize(item, addSpecial: false) != weights.tokenize(item, addSpecial: false, parseSpecial: false)
        }
        var tokens: [Int32] = []
        for (index, piece) in spans.enumerated() {
            tokens += weights.tokenize(String(piece.text), addSpecial: index == 0, parseSpecial: !piece.isContent)
        }
        return tokens
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
