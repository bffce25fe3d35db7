/// Pythonic calls, `[get_weather(city="Paris"), now()]` (Llama 3.2 and 4, LFM2, and others),
/// with Python literals as argument values.
enum PythonicCalls {
    private static let maxDepth = 128

    /// `[` calls separated by commas `]`; a call that is not literals is dropped, the others stand.
    static func list(_ c: inout ByteCursor) throws -> [Piece] {
        try c.expect([UInt8(ascii: "[")])
        var pieces: [Piece] = []
        while true {
            c.skipSpaces()
            pieces.append(try call(&c))
            c.skipSpaces()
            if try c.accept([UInt8(ascii: ",")]) { continue }
            try c.expect([UInt8(ascii: "]")])
            return try Piece.someReadable(pieces)
        }
    }

    /// `NAME(key=value, ...)`. When its arguments are not Python or JSON literals (a bytes string, a
    /// number out of range) but its parentheses balance, it is a malformed call.
    static func call(_ c: inout ByteCursor) throws -> Piece {
        let name = try c.name()
        guard Piece.isPlausibleName(name) else { throw ScanStop.noMatch }
        let start = c.index
        do {
            return .call(name: name, arguments: try argumentList(&c), id: nil)
        } catch ScanStop.noMatch {
            c.index = start
            try skipParentheses(&c)
            return .malformedCall(name: name, why: "its arguments are not Python or JSON literals")
        }
    }

    /// Skips `(…)` whose brackets balance, with quoted strings in it, on one line.
    private static func skipParentheses(_ c: inout ByteCursor) throws {
        try c.expect([UInt8(ascii: "(")])
        var closers: [UInt8] = [UInt8(ascii: ")")]
        var quote: UInt8?
        while let expected = closers.last {
            let byte = try c.require()
            c.index += 1
            if byte == UInt8(ascii: "\n") || closers.count > maxDepth { throw ScanStop.noMatch }
            if let open = quote {
                if byte == UInt8(ascii: "\\") {
                    _ = try c.require()
                    c.index += 1
                } else if byte == open {
                    quote = nil
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "("): closers.append(UInt8(ascii: ")"))
            case UInt8(ascii: "["): closers.append(UInt8(ascii: "]"))
            case Lit.openBrace: closers.append(Lit.closeBrace)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), Lit.closeBrace:
                guard byte == expected else { throw ScanStop.noMatch }
                closers.removeLast()
            default: break
            }
        }
    }

    private static let olmoOpen = [UInt8](literal: "<function_calls>")
    private static let olmoClose = [UInt8](literal: "</function_calls>")

    /// OLMo 3: `<function_calls>`, one `NAME(key=value)` call per line, `</function_calls>` (a
    /// call missing only that closing tag at the end of the text counts).
    static let olmo3: BlockReader = { c in
        try c.expect(olmoOpen)
        var pieces: [Piece] = []
        while true {
            c.skipSpaces()
            if try c.accept(olmoClose) || (c.atEnd && c.isFinal) { break }
            pieces.append(try call(&c))
            let save = c.index
            c.skipSpaces()
            if try !c.accept([UInt8(ascii: ",")]) { c.index = save }
        }
        return try Piece.someReadable(pieces)
    }

    /// `(key=value, ...)`.
    static func argumentList(_ c: inout ByteCursor) throws -> JSONObject {
        try c.expect([UInt8(ascii: "(")])
        var arguments = JSONObject()
        c.skipSpaces()
        if try c.accept([UInt8(ascii: ")")]) { return arguments }
        while true {
            c.skipSpaces()
            let key = try c.name()
            c.skipSpaces()
            try c.expect([UInt8(ascii: "=")])
            c.skipSpaces()
            arguments[key] = try value(&c, depth: 0)
            c.skipSpaces()
            if try c.accept([UInt8(ascii: ",")]) {
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ")")]) { return arguments }
                continue
            }
            try c.expect([UInt8(ascii: ")")])
            return arguments
        }
    }

    /// A Python (or JSON) literal: string, number, True/False/None, list, dict.
    static func value(_ c: inout ByteCursor, depth: Int) throws -> JSONValue {
        guard depth < maxDepth else { throw ScanStop.noMatch }
        let byte = try c.require()
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try string(&c))
        case UInt8(ascii: "["), UInt8(ascii: "("):
            let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: ")")
            c.index += 1
            var items: [JSONValue] = []
            while true {
                c.skipSpaces()
                if try c.accept([close]) { return .array(items) }
                items.append(try value(&c, depth: depth + 1))
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ",")]) { continue }
                try c.expect([close])
                return .array(items)
            }
        case Lit.openBrace:
            c.index += 1
            var object = JSONObject()
            while true {
                c.skipSpaces()
                if try c.accept([Lit.closeBrace]) { return .object(object) }
                guard case .string(let key) = try value(&c, depth: depth + 1) else { throw ScanStop.noMatch }
                c.skipSpaces()
                try c.expect([UInt8(ascii: ":")])
                c.skipSpaces()
                object[key] = try value(&c, depth: depth + 1)
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ",")]) { continue }
                try c.expect([Lit.closeBrace])
                return .object(object)
            }
        default:
            let start = c.index
            while c.index < c.bytes.count, ByteCursor.isNameByte(c.bytes[c.index]) || c.bytes[c.index] == UInt8(ascii: "+") {
                c.index += 1
            }
            guard !c.atEnd || c.isFinal else { throw ScanStop.needMore }
            let word = c.text(start..<c.index)
            switch word {
            case "True", "true": return .bool(true)
            case "False", "false": return .bool(false)
            case "None", "null": return .null
            default:
                if let integer = Int(word) { return .integer(integer) }
                if let first = word.first, first.isNumber || first == "-" || first == ".", let double = Double(word), double.isFinite {
                    return .double(double)
                }
                throw ScanStop.noMatch
            }
        }
    }

    /// A quoted string with Python escapes.
    static func string(_ c: inout ByteCursor) throws -> String {
        let quote = try c.require()
        c.index += 1
        var out: [UInt8] = []
        while true {
            let byte = try c.require()
            c.index += 1
            if byte == quote { return String(decoding: out, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { throw ScanStop.noMatch }
            guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
            let escape = try c.require()
            c.index += 1
            switch escape {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "0"): out.append(0x00)
            case UInt8(ascii: "u"):
                guard c.index + 4 <= c.bytes.count else { throw c.endStop }
                guard let code = UInt32(c.text(c.index..<(c.index + 4)), radix: 16) else { throw ScanStop.noMatch }
                c.index += 4
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(code) ?? "\u{FFFD}")).utf8))
            case UInt8(ascii: "\n"): break
            default: out.append(escape)
            }
        }
    }

    private static let pythonStart = [UInt8](literal: "<|python_start|>")
    private static let pythonEnd = [UInt8](literal: "<|python_end|>")
    private static let lfmStart = [UInt8](literal: "<|tool_call_start|>")
    private static let lfmEnd = [UInt8](literal: "<|tool_call_end|>")

    /// A pythonic list at the start of the visible text.
    static let bare: BlockReader = { c in
        let pieces = try list(&c)
        let save = c.index
        c.skipSpaces()
        if try !c.accept([UInt8(ascii: ";")]) { c.index = save }
        return pieces
    }

    /// Llama 4: `<|python_start|>[...]<|python_end|>`.
    static let llama4: BlockReader = { c in
        try c.expect(pythonStart)
        c.skipSpaces()
        let pieces = try list(&c)
        try c.skipClosingTag(pythonEnd)
        return pieces
    }

    /// LFM2: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`, or JSON calls in the same tags.
    static let lfm2: BlockReader = { c in
        try c.expect(lfmStart)
        c.skipSpaces()
        let save = c.index
        var pieces: [Piece]
        do {
            pieces = try list(&c)
        } catch ScanStop.noMatch {
            c.index = save
            pieces = try JSONCallReaders.calls(&c)
        }
        try c.skipClosingTag(lfmEnd)
        return pieces
    }
}
