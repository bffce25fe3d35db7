/// Calls written without any tag, recognised only at the start of the visible text so that JSON
/// quoted in prose is never taken for a call: Llama 3.x `{"name": ..., "parameters": ...}`, the
/// generic wrappers `{"tool_call": ...}` and `{"tool_calls": [...]}`, and lists of calls.
enum BareCallReaders {
    /// JSON calls, optionally fenced, optionally followed by `;`.
    static let json: BlockReader = { c in
        switch try c.require() {
        case Lit.openBrace, UInt8(ascii: "["), UInt8(ascii: "`"): break
        default: throw ScanStop.noMatch
        }
        let pieces = try JSONCallReaders.calls(&c, strict: true)
        let save = c.index
        c.skipSpaces()
        if try !c.accept([UInt8(ascii: ";")]) { c.index = save }
        return pieces
    }

    private static let semicolon = [UInt8](literal: ";")
    private static let llamaEnds = Marker.llamaEnds.map(\.literal)

    /// Llama 3 JSON calls after prose (`;`-separated), read as llama.cpp does only when nothing but
    /// spaces and end-of-message tokens follow them, so that JSON in the middle of prose stays text.
    static let trailingJSON: BlockReader = { c in
        var pieces: [Piece] = []
        repeat {
            c.skipSpaces()
            guard try c.peekDeciding() == Lit.openBrace, let calls = Piece.jsonCalls(try c.json(), strict: true) else {
                throw ScanStop.noMatch
            }
            pieces += calls
            c.skipSpaces()
        } while try c.accept(semicolon)
        while true {
            c.skipSpaces()
            if c.atEnd {
                guard c.isFinal else { throw ScanStop.needMore }
                return pieces
            }
            guard try llamaEnds.contains(where: { try c.accept($0) }) else { throw ScanStop.noMatch }
        }
    }

    /// The generic format's answer without calls, `{"response": "..."}` at the start: its text.
    static let response: BlockReader = { c in
        guard try c.require() == Lit.openBrace else { throw ScanStop.noMatch }
        guard case .object(let object) = try c.json(), object.count == 1,
              case .string(let text)? = object["response"] else { throw ScanStop.noMatch }
        return [.text(text)]
    }
}
