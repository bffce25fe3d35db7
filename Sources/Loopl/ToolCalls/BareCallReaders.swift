/// Calls written without any tag, recognised only at the start of the visible text so that JSON
/// quoted in prose is never taken for a call: Llama 3.x `{"name": ..., "parameters": ...}`, the
/// generic wrappers `{"tool_call": ...}` and `{"tool_calls": [...]}`, and lists of calls.
enum BareCallReaders {
    /// JSON calls, optionally fenced, optionally followed by `;`.
    static let json: BlockReader = { c in
        switch try c.require() {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "`"): break
        default: throw ScanStop.noMatch
        }
        let pieces = try JSONCallReaders.calls(&c, strict: true)
        let save = c.index
        c.skipSpaces()
        if try !c.accept([UInt8(ascii: ";")]) { c.index = save }
        return pieces
    }
}
