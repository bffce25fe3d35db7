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

    /// `tool` with the control-token text of its name, description and schema replaced by marks.
    func mark(_ tool: ToolSpec) -> ToolSpec {
        ToolSpec(name: mark(tool.name), description: mark(tool.description), parameters: mark(tool.parameters))
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

    /// The rendered prompt cut at the marks, each mark back as its text. A mark that a template
    /// wrote as JSON with `ensure_ascii` (`\udb80\udc00`) comes back as its text escaped the same way.
    func split(_ rendered: String) -> [PromptSpans.Piece] {
        var pieces: [PromptSpans.Piece] = []
        var template = String.UnicodeScalarView()
        let scalars = Array(rendered.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard let (text, length) = content(at: index, in: scalars) else {
                template.append(scalars[index])
                index += 1
                continue
            }
            if !template.isEmpty { pieces.append(.init(text: String(template), isContent: false)) }
            template = String.UnicodeScalarView()
            pieces.append(.init(text: text, isContent: true))
            index += length
        }
        if !template.isEmpty || pieces.isEmpty { pieces.append(.init(text: String(template), isContent: false)) }
        return pieces
    }

    /// The control-token text that a mark at `index` stands for, and how many scalars it takes.
    private func content(at index: Int, in scalars: [Unicode.Scalar]) -> (String, Int)? {
        if let text = texts[scalars[index]] { return (text, 1) }
        guard scalars[index] == "\\", index + 12 <= scalars.count,
              let mark = Self.unescape(scalars[index..<index + 12]), let text = texts[mark] else { return nil }
        let escaped = JSONValue.string(text).jsonText().dropFirst().dropLast().unicodeScalars
        return (escaped.map { $0.isASCII ? String($0) : Self.escape($0) }.joined(), 12)
    }

    /// A scalar written as JSON with `ensure_ascii`: `\u00e9`, or a surrogate pair.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf16.map { unit in
            let hex = String(unit, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    /// The scalar of a JSON surrogate pair (`\udb80\udc00`, either case).
    static func unescape(_ text: ArraySlice<Unicode.Scalar>) -> Unicode.Scalar? {
        let units = [text.startIndex, text.startIndex + 6].compactMap { start -> UInt16? in
            guard text[start] == "\\", text[start + 1] == "u" || text[start + 1] == "U" else { return nil }
            return UInt16(String(String.UnicodeScalarView(text[start + 2..<start + 6])), radix: 16)
        }
        guard units.count == 2, UTF16.isLeadSurrogate(units[0]), UTF16.isTrailSurrogate(units[1]) else { return nil }
        return String(decoding: units, as: UTF16.self).unicodeScalars.first
    }
}
