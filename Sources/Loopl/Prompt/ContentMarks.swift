/// The private-use characters that stand for control-token text in message content while a
/// template renders it (``PromptSpans``): one character for each text, so that a template that
/// trims, slices, escapes or quotes the content carries the mark along whole.
struct ContentMarks {
    /// The marks come from the supplementary private-use planes, which no template writes.
    static let planes: [ClosedRange<UInt32>] = [0xF0000...0xFFFFD, 0x100000...0x10FFFD]

    /// The control-token texts, longest first, each with its mark.
    private let marks: [(text: [Unicode.Scalar], mark: Unicode.Scalar)]
    private let texts: [Unicode.Scalar: String]

    /// Marks for `texts`, none of them one of `reserved` (characters the conversation holds).
    init(texts: Set<String>, reserved: Set<Unicode.Scalar>) throws {
        var free = Self.planes.lazy.joined().compactMap(Unicode.Scalar.init).filter { !reserved.contains($0) }.makeIterator()
        var marks: [(text: [Unicode.Scalar], mark: Unicode.Scalar)] = []
        for text in texts.sorted(by: { $0.unicodeScalars.count > $1.unicodeScalars.count }) {
            guard let mark = free.next() else {
                throw LooplError(.invalidRequest, "The conversation holds more different control-token texts than Loopl can keep apart (\(texts.count)); shorten it.")
            }
            marks.append((Array(text.unicodeScalars), mark))
        }
        self.marks = marks
        self.texts = Dictionary(uniqueKeysWithValues: marks.map { ($0.mark, String(String.UnicodeScalarView($0.text))) })
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        planes.contains { $0.contains(scalar.value) }
    }

    /// `message` with the control-token text of its content replaced by marks; a system prompt as it is.
    func mark(_ message: Message) -> Message {
        switch message {
        case .system: message
        case .user(let text): .user(mark(text))
        case .tool(let result, let callId, let name): .tool(result: mark(result), callId: callId, name: name)
        case .assistant(let text, let calls, let reasoning):
            .assistant(text: mark(text), toolCalls: calls.map { call in
                var call = call
                call.arguments = JSONObject(call.arguments.map { (mark($0.key), mark($0.value)) })
                return call
            }, reasoning: reasoning.map(mark))
        }
    }

    private func mark(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(mark(text))
        case .array(let items): .array(items.map(mark))
        case .object(let object): .object(JSONObject(object.map { (mark($0.key), mark($0.value)) }))
        default: value
        }
    }

    /// `text` with each control-token text (matched by Unicode scalars, as the tokenizer matches
    /// bytes) replaced by its mark.
    func mark(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if let found = marks.first(where: { scalars[index...].starts(with: $0.text) }) {
                out.append(found.mark)
                index += found.text.count
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    /// The rendered prompt cut at the marks, each mark back as its text.
    func split(_ rendered: String) -> [PromptSpans.Piece] {
        var pieces: [PromptSpans.Piece] = []
        var template = String.UnicodeScalarView()
        for scalar in rendered.unicodeScalars {
            guard let text = texts[scalar] else {
                template.append(scalar)
                continue
            }
            if !template.isEmpty { pieces.append(.init(text: String(template), isContent: false)) }
            template = String.UnicodeScalarView()
            pieces.append(.init(text: text, isContent: true))
        }
        if !template.isEmpty || pieces.isEmpty { pieces.append(.init(text: String(template), isContent: false)) }
        return pieces
    }
}
