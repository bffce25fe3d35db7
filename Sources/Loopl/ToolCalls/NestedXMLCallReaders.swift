/// MiniMax M3: every tag follows the separator token `]<]minimax[>[`, and arguments nest as XML:
/// `<tool_call><invoke name="F"><city>Paris</city><opts><n>1</n></opts><tags><item>a</item></tags></invoke></tool_call>`.
enum NestedXMLCallReaders {
    private static let separator = "]<]minimax[>["
    private static let open = Array("\(separator)<tool_call>".utf8)
    private static let close = Array("\(separator)</tool_call>".utf8)
    private static let invoke = Array("\(separator)<invoke name=\"".utf8)
    private static let invokeClose = Array("\(separator)</invoke>".utf8)
    private static let tagStart = Array("\(separator)<".utf8)
    private static let closingTagStart = Array("\(separator)</".utf8)
    private static let maxDepth = 64

    static let minimaxM3: BlockReader = { c in
        try c.expect(open)
        var pieces: [Piece] = []
        while true {
            let before = c.index
            c.skipSpaces()
            guard try c.accept(invoke) else { c.index = before; break }
            let name = try c.read(upTo: Lit.quote)
            guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
            try c.expect(Lit.gt)
            switch try content(&c, until: invokeClose, depth: 0) {
            case .object(let arguments): pieces.append(.call(name: name, arguments: arguments, id: nil))
            case .string(""): pieces.append(.call(name: name, arguments: [:], id: nil))
            default: throw ScanStop.noMatch
            }
        }
        guard !pieces.isEmpty else { throw ScanStop.noMatch }
        try c.skipClosingTag(close)
        return pieces
    }

    /// Whether `literal` comes next; waits when the text ends inside it.
    private static func sees(_ c: ByteCursor, _ literal: [UInt8]) throws -> Bool {
        switch c.check(literal) {
        case .yes: return true
        case .no: return false
        case .partial:
            if c.isFinal { return false }
            throw ScanStop.needMore
        }
    }

    /// The value inside a tag, up to and including `closing`: child tags make an object (or an
    /// array when they are `item`s); bare text is typed loosely.
    private static func content(_ c: inout ByteCursor, until closing: [UInt8], depth: Int) throws -> JSONValue {
        guard depth < maxDepth else { throw ScanStop.noMatch }
        guard try sees(c, tagStart), try !sees(c, closingTagStart) else {
            return Piece.looseValue(try c.read(upTo: closing))
        }
        var object = JSONObject()
        var items: [JSONValue] = []
        while true {
            c.skipSpaces()
            if try c.accept(closing) { return object.isEmpty && !items.isEmpty ? .array(items) : .object(object) }
            try c.expect(tagStart)
            let key = try c.read(upTo: Lit.gt)
            guard Piece.isPlausibleName(key) else { throw ScanStop.noMatch }
            let value = try content(&c, until: Array("\(separator)</\(key)>".utf8), depth: depth + 1)
            if key == "item" { items.append(value) } else { object[key] = value }
        }
    }
}
