/// Readers of formats that route text by a header naming a channel or a recipient: GPT-OSS
/// harmony and Functionary v3.2.
enum ChannelCallReaders {
    private static let start = [UInt8](literal: "<|start|>")
    private static let channel = [UInt8](literal: "<|channel|>")
    private static let message = [UInt8](literal: "<|message|>")
    private static let bodyEnds: [[UInt8]] = [Array("<|call|>".utf8), Array("<|end|>".utf8), Array("<|return|>".utf8)]
    private static let analysisEnd = [UInt8](literal: "<|end|>")
    private static let maxHeader = 512
    private static let recipient = [UInt8](literal: "to=functions.")

    /// Harmony: `[<|start|>assistant][ to=functions.NAME]<|channel|>CHANNEL[ to=…][ <|constrain|>json]<|message|>`.
    /// A call's JSON body runs to `<|call|>`; `analysis` opens thinking; other channels' text flows on
    /// as content, as does a message to `assistant`. A recipient outside `functions.` is one of the
    /// model's built-in tools (`python`, `browser.search`). A header that another header follows
    /// before any message carries nothing.
    static let harmony: BlockReader = { c in
        var channels = 0
        if try !c.accept(start), c.check(recipient) != .yes {
            try c.expect(channel)
            channels = 1
        }
        let begin = c.index
        while try !c.accept(message) {
            guard c.index - begin < maxHeader else { throw ScanStop.noMatch }
            if c.check(start) == .yes { return [] }
            if c.check(channel) == .yes {
                if channels > 0 { return [] }
                channels += 1
            }
            _ = try c.require()
            c.index += 1
        }
        let header = c.text(begin..<(c.index - message.count))
        let words = header.split(whereSeparator: { $0 == " " || $0 == "<" || $0 == ">" || $0 == "|" || $0 == "\n" })
        if let recipient = words.first(where: { $0.hasPrefix("to=") })?.dropFirst(3), recipient != "assistant" {
            let name = String(recipient.hasPrefix("functions.") ? recipient.dropFirst("functions.".count) : recipient)
            guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            let (body, _) = try c.read(upToAny: bodyEnds)
            guard recipient.hasPrefix("functions.") else {
                return [.builtinCall(name: name, arguments: Piece.arguments(.string(body)) ?? ["code": .string(body)])]
            }
            guard let arguments = Piece.arguments(.string(body)) else { throw ScanStop.noMatch }
            return [.call(name: name, arguments: arguments, id: nil)]
        }
        if words.contains("analysis") { return [.openReasoning(analysisEnd)] }
        return []
    }

    private static let recipientMark = [UInt8](literal: ">>>")
    private static let nextRecipient: [[UInt8]] = [Array(">>>".utf8)]

    /// Functionary v3.2 `>>>NAME\n{...}`: `all` is text for the user, `python` may be raw code.
    static let functionaryRecipient: BlockReader = { c in
        try c.expect(recipientMark)
        return try functionaryBody(&c)
    }

    /// The first recipient of a Functionary v3.2 turn, whose `>>>` the prompt already wrote.
    static let functionaryStart: BlockReader = { c in try functionaryBody(&c) }

    /// The first recipient as `.auto` reads it: `all` or a call with JSON arguments, not code.
    static let functionaryFirstCall: BlockReader = { c in try functionaryBody(&c, allowsCode: false) }

    private static func functionaryBody(_ c: inout ByteCursor, allowsCode: Bool = true) throws -> [Piece] {
        let name = try c.name()
        try c.expect(Lit.newline)
        if name == "all" { return [] }
        let save = c.index
        c.skipSpaces()
        if try c.require() == Lit.openBrace {
            guard let arguments = Piece.arguments(try c.json()) else { throw ScanStop.noMatch }
            return [.call(name: name, arguments: arguments, id: nil)]
        }
        guard allowsCode, name == "python" else { throw ScanStop.noMatch }
        c.index = save
        let (code, closer) = try c.read(upToAny: nextRecipient)
        if closer != nil { c.index -= recipientMark.count }
        return [.call(name: name, arguments: ["code": .string(code)], id: nil)]
    }

    private static let museRecipient = [UInt8](literal: "to=")
    private static let museReasoningEnd = [UInt8](literal: "<|eom|>")

    /// Muse Glimmer's message header `to=RECIPIENT<|message|>`: `self` opens thinking (to `<|eom|>`);
    /// a tool's message carries an `<atem:function_calls>` block, read by its own marker.
    static let museHeader: BlockReader = { c in
        try c.expect(museRecipient)
        let recipient = try c.name()
        try c.expect(message)
        return recipient == "self" ? [.openReasoning(museReasoningEnd)] : []
    }
}
