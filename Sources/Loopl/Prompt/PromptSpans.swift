/// A conversation's prompt with the control-token text of its content kept apart, so that it is
/// tokenized as plain text and cannot forge a turn.
///
/// Before rendering, each control-token text in message content (user turns, tool results,
/// earlier assistant text and thinking, tool-call arguments) and in the tools' names,
/// descriptions and schemas (an MCP server's, a third party's) is replaced by a private-use
/// character of its own. The template writes that character wherever and however it writes the
/// content (as it is, trimmed, sliced, escaped, as JSON), and the rendered prompt is cut there.
/// The system prompt is the application's own text and stays as it is.
package struct PromptSpans: Sendable {
    /// A piece of the prompt: the template's text (special tokens parsed), or one control-token
    /// text from content (tokenized as plain text).
    package struct Piece: Equatable, Sendable {
        package var text: String
        package var isContent: Bool
    }

    /// What is printed when `allowSpecialTokensInContent` turns the spans off.
    package static let switchWarning = "allowSpecialTokensInContent is on: control-token text in messages and tool results (<|im_start|>, <|eot_id|>) becomes the model's control tokens, so a tool result or a file can forge a turn."

    /// The prompt, with the content's control-token text in place.
    package let text: String
    /// The prompt in order; one piece, the whole prompt, when no content holds control-token text.
    package let pieces: [Piece]

    /// The prompt that `render` makes of `messages` and `tools`, with `controlTexts` (the
    /// control-token texts that the content holds: ``controlTexts(special:plain:piece:)``) kept
    /// apart wherever the content has them.
    package init(messages: [Message], tools: [ToolSpec], controlTexts: Set<String>,
                 render: ([Message], [ToolSpec]) throws -> String) throws {
        guard !controlTexts.isEmpty else {
            text = try render(messages, tools)
            pieces = [Piece(text: text, isContent: false)]
            return
        }
        let marks = try ContentMarks(texts: controlTexts, reserved: Self.privateUse(in: messages, tools))
        pieces = marks.split(try render(messages.map(marks.mark), tools.map(marks.mark)))
        text = pieces.map(\.text).joined()
    }

    /// The non-empty content of `messages` and `tools`, each once: the texts a backend asks its tokenizer about.
    package static func content(of messages: [Message], tools: [ToolSpec] = []) -> [String] {
        var seen = Set<String>()
        let texts = messages.flatMap { message -> [String] in
            switch message {
            case .system: []
            case .user(let text), .tool(let text, _, _): [text]
            case .assistant(let text, let calls, let reasoning):
                [reasoning, text].compactMap { $0 } + calls.flatMap { strings(in: .object($0.arguments)) }
            }
        } + tools.flatMap { [$0.name, $0.description] + strings(in: $0.parameters) }
        return texts.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// The texts of the control tokens in `special` (a text's tokens, special tokens parsed) that
    /// `plain` (its tokens as plain text) lacks: `piece` gives a token's text.
    package static func controlTexts<Token: Hashable>(special: [Token], plain: [Token], piece: (Token) -> String) -> Set<String> {
        Set(controlTokens(special: special, plain: plain).map(piece).filter { !$0.isEmpty })
    }

    /// The tokens of `special` (a text's tokens, special tokens parsed) that `plain` (its tokens as
    /// plain text) lacks: the control tokens the text holds.
    package static func controlTokens<Token: Hashable>(special: [Token], plain: [Token]) -> [Token] {
        let ordinary = Set(plain)
        return special.filter { !ordinary.contains($0) }
    }

    /// The strings of a JSON value: keys and values.
    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings(in:))
        case .object(let object): object.flatMap { [$0.key] + strings(in: $0.value) }
        default: []
        }
    }

    /// The private-use characters that the conversation and tools already hold: no mark takes them.
    static func privateUse(in messages: [Message], _ tools: [ToolSpec]) -> Set<Unicode.Scalar> {
        let texts = messages.map { $0.templateValue.jsonText() } + tools.map { $0.openAIValue.jsonText() }
        return Set(texts.flatMap { $0.unicodeScalars.filter(ContentMarks.isMark) })
    }
}
