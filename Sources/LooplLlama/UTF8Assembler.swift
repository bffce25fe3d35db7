/// Turns a stream of token bytes into text that is always whole UTF-8 characters: a token can
/// carry half a character, whose rest comes with the next token.
struct UTF8Assembler {
    private var pending: [UInt8] = []

    /// Adds `bytes` and returns the text that is complete so far.
    mutating func append(_ bytes: [UInt8]) -> String {
        pending += bytes
        let cut = completeLength()
        defer { pending.removeFirst(cut) }
        return String(decoding: pending[..<cut], as: UTF8.self)
    }

    /// Returns whatever is left, invalid bytes replaced, at the end of the stream.
    mutating func flush() -> String {
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self)
    }

    /// The length of `pending` without a trailing, still incomplete character.
    private func completeLength() -> Int {
        var index = pending.count - 1
        var continuation = 0
        while index >= 0, continuation < 3, pending[index] & 0xC0 == 0x80 {
            continuation += 1
            index -= 1
        }
        guard index >= 0 else { return pending.count }
        let lead = pending[index]
        let needed = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0
        return needed > continuation ? index : pending.count
    }
}
