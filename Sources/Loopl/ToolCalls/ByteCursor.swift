/// Why a markup reader stopped before reading a whole block.
enum ScanStop: Error {
    /// The text ends inside the block: more text may complete it.
    case needMore
    /// The text is not this block.
    case noMatch
}

/// How the bytes at a position compare with a literal.
enum LiteralMatch {
    case yes
    case no
    /// The bytes run out while still matching.
    case partial
}

/// A position in UTF-8 text that markup readers advance; reaching the end of text that is not yet
/// final throws ``ScanStop/needMore``, so one reader serves whole texts and streams alike.
struct ByteCursor {
    let bytes: [UInt8]
    var index: Int
    /// True when no more text will come.
    let isFinal: Bool
    /// How many bytes the searches for closing tags have looked at: the work that must stay
    /// linear in the text, however its tags are left open.
    var scanned = 0

    init(_ bytes: [UInt8], at index: Int, isFinal: Bool) {
        self.bytes = bytes
        self.index = index
        self.isFinal = isFinal
    }

    var atEnd: Bool { index >= bytes.count }

    /// The stop for running out of text: wait for more, or give up when the text is final.
    var endStop: ScanStop { isFinal ? .noMatch : .needMore }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The next byte; nil at the end of final text; at the end of open text, waits for more.
    func peekDeciding() throws -> UInt8? {
        if index < bytes.count { return bytes[index] }
        if isFinal { return nil }
        throw ScanStop.needMore
    }

    /// The next byte, which must exist (or more text must be awaited).
    func require() throws -> UInt8 {
        guard index < bytes.count else { throw endStop }
        return bytes[index]
    }

    func check(_ literal: [UInt8]) -> LiteralMatch {
        ByteCursor.match(bytes, at: index, literal)
    }

    static func match(_ bytes: [UInt8], at index: Int, _ literal: [UInt8]) -> LiteralMatch {
        var i = 0
        while i < literal.count {
            let at = index + i
            if at >= bytes.count { return .partial }
            if bytes[at] != literal[i] { return .no }
            i += 1
        }
        return .yes
    }

    /// Consumes `literal`, which must come next.
    mutating func expect(_ literal: [UInt8]) throws {
        switch check(literal) {
        case .yes: index += literal.count
        case .no: throw ScanStop.noMatch
        case .partial: throw endStop
        }
    }

    /// Consumes `literal` when it comes next; at the end of final text it does not.
    mutating func accept(_ literal: [UInt8]) throws -> Bool {
        switch check(literal) {
        case .yes: index += literal.count; return true
        case .no: return false
        case .partial:
            if isFinal { return false }
            throw ScanStop.needMore
        }
    }

    /// Skips spaces, tabs and line breaks.
    mutating func skipSpaces() {
        while index < bytes.count, ByteCursor.isSpace(bytes[index]) { index += 1 }
    }

    /// Skips spaces and requires a following byte (so that a decision after the spaces is final).
    mutating func skipSpacesRequiringMore() throws {
        skipSpaces()
        _ = try require()
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// The first position at or after `from` where `literal` starts.
    static func find(_ literal: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard let first = literal.first, literal.count <= bytes.count else { return nil }
        var i = from
        let last = bytes.count - literal.count
        while i <= last {
            if bytes[i] == first, match(bytes, at: i, literal) == .yes { return i }
            i += 1
        }
        return nil
    }

    /// Reads up to `literal` and consumes it; the literal must appear.
    mutating func read(upTo literal: [UInt8]) throws -> String {
        let found = ByteCursor.find(literal, in: bytes, from: index)
        scanned += (found ?? bytes.count) - index
        guard let at = found else { throw endStop }
        defer { index = at + literal.count }
        return text(index..<at)
    }

    /// Reads up to the first of `literals` (consuming it) or, in final text, to the end.
    /// Returns the text and which literal closed it (nil at the end).
    mutating func read(upToAny literals: [[UInt8]]) throws -> (String, Int?) {
        var best: (at: Int, which: Int)?
        for (n, literal) in literals.enumerated() {
            let found = ByteCursor.find(literal, in: bytes, from: index)
            scanned += (found ?? bytes.count) - index
            if let at = found, best.map({ at < $0.at }) ?? true {
                best = (at, n)
            }
        }
        if let best {
            defer { index = best.at + literals[best.which].count }
            return (text(index..<best.at), best.which)
        }
        guard isFinal else { throw ScanStop.needMore }
        defer { index = bytes.count }
        return (text(index..<bytes.count), nil)
    }

    /// Reads a value up to `close` (consumed) or, when a tag of `ends` comes first, up to that tag
    /// (left for the caller): a value whose closing tag is missing ends at the next opening tag.
    /// The search stops at the first of them, so reading stays linear. Returns the value and
    /// whether `close` ended it; the text must hold one of them.
    mutating func readValue(close: [UInt8], orBefore ends: [[UInt8]]) throws -> (value: String, closed: Bool) {
        let start = index
        var i = index
        defer { scanned += i - start }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == close.first {
                switch ByteCursor.match(bytes, at: i, close) {
                case .yes:
                    index = i + close.count
                    return (text(start..<i), true)
                case .partial where !isFinal: throw ScanStop.needMore
                default: break
                }
            }
            for end in ends where byte == end.first {
                switch ByteCursor.match(bytes, at: i, end) {
                case .yes:
                    index = i
                    return (text(start..<i), false)
                case .partial where !isFinal: throw ScanStop.needMore
                default: break
                }
            }
            i += 1
        }
        throw endStop
    }

    /// Reads an attribute's value up to its closing quote, which must come before the tag ends.
    mutating func readQuoted() throws -> String {
        let start = index
        var i = index
        defer { scanned += i - start }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""):
                index = i + 1
                return text(start..<i)
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\n"): throw ScanStop.noMatch
            default: i += 1
            }
        }
        throw endStop
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// Reads a name: letters, digits and `_ - . :`; at least one byte, and a byte after it.
    mutating func name(extra: [UInt8] = []) throws -> String {
        let start = index
        while index < bytes.count, ByteCursor.isNameByte(bytes[index]) || extra.contains(bytes[index]) { index += 1 }
        guard index < bytes.count || isFinal else { throw ScanStop.needMore }
        guard index > start else { throw ScanStop.noMatch }
        return text(start..<index)
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// Reads one JSON value after optional spaces.
    mutating func json() throws -> JSONValue {
        skipSpaces()
        switch JSONExtent.scan(bytes, from: index) {
        case .incomplete: throw endStop
        case .invalid: throw ScanStop.noMatch
        case .complete(let end):
            guard let value = try? JSONValue(parsing: bytes[index..<end]) else { throw ScanStop.noMatch }
            index = end
            return value
        }
    }

    /// Skips an opening code fence (```` ``` ```` or ```` ```json ````) if one comes next.
    mutating func skipOpeningFence() throws {
        skipSpaces()
        if try accept(Lit.fence) {
            while index < bytes.count, ByteCursor.isNameByte(bytes[index]) { index += 1 }
            skipSpaces()
        }
    }

    /// Skips a closing code fence if one comes next.
    mutating func skipClosingFence() throws {
        let save = index
        skipSpaces()
        if try !accept(Lit.fence) { index = save }
    }

    /// An optional closing tag after optional spaces; a call cut off before it still counts.
    mutating func skipClosingTag(_ tag: [UInt8]) throws {
        let save = index
        skipSpaces()
        if atEnd {
            guard isFinal else { throw ScanStop.needMore }
            index = save
            return
        }
        // A turn cut inside the closing tag: the tag's start is markup, not text.
        if isFinal, case .partial = check(tag) {
            index = bytes.count
            return
        }
        if try !accept(tag) { index = save }
    }
}

extension Array where Element == UInt8 {
    init(literal: String) { self = Array(literal.utf8) }
}
