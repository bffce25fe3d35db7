/// Gemma 4 (`<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>`) and FunctionGemma
/// (`<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`): bare keys,
/// strings between quote tokens.
enum GemmaCallReaders {
    private static let call = [UInt8](literal: "call:")
    private static let maxDepth = 128

    static func block(open: String, close: String, quote: String) -> BlockReader {
        let openBytes = Array(open.utf8)
        let closeBytes = Array(close.utf8)
        let quoteBytes = Array(quote.utf8)
        return { c in
            try c.expect(openBytes)
            var pieces: [Piece] = []
            repeat {
                c.skipSpaces()
                try c.expect(call)
                let name = try c.name()
                guard case .object(let arguments) = try value(&c, quote: quoteBytes, depth: 0) else { throw ScanStop.noMatch }
                pieces.append(.call(name: name, arguments: arguments, id: nil))
                c.skipSpaces()
            } while try c.accept([UInt8(ascii: ",")])
            try c.skipClosingTag(closeBytes)
            return pieces
        }
    }

    private static func value(_ c: inout ByteCursor, quote: [UInt8], depth: Int) throws -> JSONValue {
        guard depth < maxDepth else { throw ScanStop.noMatch }
        c.skipSpaces()
        if try c.accept(quote) { return .string(try c.read(upTo: quote)) }
        switch try c.require() {
        case Lit.openBrace:
            c.index += 1
            var object = JSONObject()
            while true {
                c.skipSpaces()
                if try c.accept([Lit.closeBrace]) { return .object(object) }
                let key: String
                if try c.accept(quote) {
                    key = try c.read(upTo: quote)
                } else {
                    key = try c.name()
                }
                c.skipSpaces()
                try c.expect([UInt8(ascii: ":")])
                object[key] = try value(&c, quote: quote, depth: depth + 1)
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ",")]) { continue }
                try c.expect([Lit.closeBrace])
                return .object(object)
            }
        case UInt8(ascii: "["):
            c.index += 1
            var items: [JSONValue] = []
            while true {
                c.skipSpaces()
                if try c.accept([UInt8(ascii: "]")]) { return .array(items) }
                items.append(try value(&c, quote: quote, depth: depth + 1))
                c.skipSpaces()
                if try c.accept([UInt8(ascii: ",")]) { continue }
                try c.expect([UInt8(ascii: "]")])
                return .array(items)
            }
        default:
            let start = c.index
            while c.index < c.bytes.count, ![UInt8(ascii: ","), Lit.closeBrace, UInt8(ascii: "]")].contains(c.bytes[c.index]) {
                guard c.bytes[c.index] != UInt8(ascii: "<"), c.index - start < 256 else { throw ScanStop.noMatch }
                c.index += 1
            }
            guard !c.atEnd else { throw c.endStop }
            let word = c.text(start..<c.index).trimmingWhitespace()
            guard !word.isEmpty else { throw ScanStop.noMatch }
            if let parsed = try? JSONValue(parsing: word), parsed.stringValue == nil { return parsed }
            return .string(word)
        }
    }
}
