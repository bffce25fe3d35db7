/// One token of a template: text between tags, a tag's delimiters, or a word of an expression.
struct TemplateToken: Sendable {
    enum Kind: Sendable, Equatable {
        case text(String)
        case blockBegin, blockEnd, variableBegin, variableEnd
        case name(String)
        case string(String)
        case integer(Int)
        case float(Double)
        case op(String)
        case end
    }

    let kind: Kind
    /// Byte offset in the normalized source.
    let offset: Int
}

/// Splits a template into tokens with Jinja's whitespace rules as transformers configures them:
/// `trim_blocks` and `lstrip_blocks` on, `-` and `+` modifiers, trailing newline dropped.
struct TemplateLexer {
    private let bytes: [UInt8]
    private var pos = 0
    private var lineStarting = true
    private(set) var tokens: [TemplateToken] = []
    /// Offsets where lines start, to name a line and column.
    let lineStarts: [Int]

    init(source: String) {
        // Newlines become "\n", and one trailing newline goes (keep_trailing_newline off).
        var normalized: [UInt8] = []
        normalized.reserveCapacity(source.utf8.count)
        var previousCR = false
        for byte in source.utf8 {
            if byte == 0x0D { normalized.append(0x0A); previousCR = true; continue }
            if byte == 0x0A && previousCR { previousCR = false; continue }
            previousCR = false
            normalized.append(byte)
        }
        if normalized.last == 0x0A { normalized.removeLast() }
        bytes = normalized
        var starts = [0]
        for (i, byte) in normalized.enumerated() where byte == 0x0A { starts.append(i + 1) }
        lineStarts = starts
    }

    /// The 1-based line and column of a byte offset.
    func location(_ offset: Int) -> (line: Int, column: Int) {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        let start = lineStarts[low]
        let column = String(decoding: bytes[start..<min(max(offset, start), bytes.count)], as: UTF8.self)
            .unicodeScalars.count + 1
        return (low + 1, column)
    }

    func syntaxError(_ message: String, at offset: Int) -> JinjaError {
        let (line, column) = location(offset)
        return JinjaError("Template syntax error at line \(line), column \(column): \(message).")
    }

    private static let operatorBytes = Set("+-*/%~<>=()[]{},.:|;".utf8)

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) || (b >= 0x1C && b <= 0x1F) }

    mutating func tokenize() throws -> [TemplateToken] {
        while pos < bytes.count {
            guard let start = nextTagStart(from: pos) else {
                emitText(pos, bytes.count)
                break
            }
            let kind = bytes[start + 1]
            let sign: UInt8? = start + 2 < bytes.count && (bytes[start + 2] == 0x2D || bytes[start + 2] == 0x2B)
                ? bytes[start + 2] : nil
            var textEnd = start
            if sign == 0x2D {
                while textEnd > pos, Self.isSpace(bytes[textEnd - 1]) { textEnd -= 1 }
            } else if sign == nil && kind != 0x7B {
                textEnd = lstripped(from: pos, to: start)
            }
            emitText(pos, textEnd)
            pos = start + 2 + (sign == nil ? 0 : 1)
            switch kind {
            case 0x23: try skipComment(start)
            case 0x25:
                if try !rawBlock(start) { try tag(begin: start, block: true) }
            default: try tag(begin: start, block: false)
            }
        }
        tokens.append(TemplateToken(kind: .end, offset: bytes.count))
        return tokens
    }

    private func nextTagStart(from index: Int) -> Int? {
        var i = index
        while i + 1 < bytes.count {
            if bytes[i] == 0x7B, bytes[i + 1] == 0x7B || bytes[i + 1] == 0x25 || bytes[i + 1] == 0x23 { return i }
            i += 1
        }
        return nil
    }

    /// lstrip_blocks: drops spaces between the line's start and a block tag when nothing else is there.
    private func lstripped(from textStart: Int, to tagStart: Int) -> Int {
        var lineStart = tagStart
        while lineStart > textStart, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
        guard lineStart > textStart || lineStarting, lineStart < tagStart else { return tagStart }
        for i in lineStart..<tagStart where !Self.isSpace(bytes[i]) { return tagStart }
        return lineStart
    }

    private mutating func emitText(_ start: Int, _ end: Int) {
        guard end > start else { return }
        tokens.append(TemplateToken(kind: .text(String(decoding: bytes[start..<end], as: UTF8.self)), offset: start))
    }

    /// Moves past a tag's end: `-` drops all following whitespace, a plain end one newline (trim_blocks).
    private mutating func finishTag(sign: UInt8?, trimNewline: Bool) {
        if sign == 0x2D {
            while pos < bytes.count, Self.isSpace(bytes[pos]) { pos += 1 }
        } else if sign == nil, trimNewline, pos < bytes.count, bytes[pos] == 0x0A {
            pos += 1
        }
        lineStarting = pos > 0 && bytes[pos - 1] == 0x0A
    }

    private func matches(_ text: String, at index: Int) -> Bool {
        var i = index
        for byte in text.utf8 {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
        }
        return true
    }

    private mutating func skipComment(_ start: Int) throws {
        var i = pos
        while i + 1 < bytes.count {
            if bytes[i] == 0x23, bytes[i + 1] == 0x7D {
                let sign: UInt8? = i > pos && (bytes[i - 1] == 0x2D || bytes[i - 1] == 0x2B) ? bytes[i - 1] : nil
                pos = i + 2
                finishTag(sign: sign, trimNewline: true)
                return
            }
            i += 1
        }
        throw syntaxError("missing end of comment tag", at: start)
    }

    /// `{% raw %}...{% endraw %}`: the text between is kept as is.
    private mutating func rawBlock(_ start: Int) throws -> Bool {
        var i = pos
        while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
        guard matches("raw", at: i) else { return false }
        i += 3
        while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
        if matches("-%}", at: i) {
            i += 3
            while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
        } else if matches("%}", at: i) {
            i += 2
        } else {
            return false
        }
        let contentStart = i
        var j = i
        while let tagStart = nextTagStart(from: j) {
            j = tagStart + 2
            guard bytes[tagStart + 1] == 0x25 else { continue }
            let sign: UInt8? = j < bytes.count && (bytes[j] == 0x2D || bytes[j] == 0x2B) ? bytes[j] : nil
            var k = j + (sign == nil ? 0 : 1)
            while k < bytes.count, Self.isSpace(bytes[k]) { k += 1 }
            guard matches("endraw", at: k) else { continue }
            k += 6
            while k < bytes.count, Self.isSpace(bytes[k]) { k += 1 }
            let endSign: UInt8?
            if matches("-%}", at: k) { endSign = 0x2D; k += 3 }
            else if matches("+%}", at: k) { endSign = 0x2B; k += 3 }
            else if matches("%}", at: k) { endSign = nil; k += 2 }
            else { continue }
            var textEnd = tagStart
            if sign == 0x2D {
                while textEnd > contentStart, Self.isSpace(bytes[textEnd - 1]) { textEnd -= 1 }
            } else if sign == nil {
                lineStarting = contentStart > 0 && bytes[contentStart - 1] == 0x0A
                textEnd = lstripped(from: contentStart, to: tagStart)
            }
            emitText(contentStart, textEnd)
            pos = k
            finishTag(sign: endSign, trimNewline: true)
            return true
        }
        throw syntaxError("missing {% endraw %} for this {% raw %}", at: start)
    }

    private mutating func tag(begin start: Int, block: Bool) throws {
        tokens.append(TemplateToken(kind: block ? .blockBegin : .variableBegin, offset: start))
        var depth = 0
        while true {
            while pos < bytes.count, Self.isSpace(bytes[pos]) { pos += 1 }
            guard pos < bytes.count else {
                throw syntaxError("missing end of \(block ? "block tag '%}'" : "expression '}}'")", at: start)
            }
            if depth == 0, closeTag(block: block) { return }
            let offset = pos
            let byte = bytes[pos]
            if byte == 0x5F || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte >= 0x80 {
                var end = pos
                while end < bytes.count, bytes[end] == 0x5F || bytes[end] >= 0x80
                        || (bytes[end] | 0x20 >= 0x61 && bytes[end] | 0x20 <= 0x7A)
                        || (bytes[end] >= 0x30 && bytes[end] <= 0x39) { end += 1 }
                tokens.append(TemplateToken(kind: .name(String(decoding: bytes[pos..<end], as: UTF8.self)), offset: offset))
                pos = end
            } else if byte >= 0x30 && byte <= 0x39 {
                tokens.append(TemplateToken(kind: try number(), offset: offset))
            } else if byte == 0x27 || byte == 0x22 {
                tokens.append(TemplateToken(kind: .string(try string()), offset: offset))
            } else {
                try operatorToken(depth: &depth)
            }
        }
    }

    /// The tag's closing `%}` or `}}` (with its whitespace sign) at `pos`, if it is there.
    private mutating func closeTag(block: Bool) -> Bool {
        let close = block ? "%}" : "}}"
        var sign: UInt8? = nil
        var length = 0
        if matches("-" + close, at: pos) { sign = 0x2D; length = 3 }
        else if matches("+" + close, at: pos) && block { sign = 0x2B; length = 3 }
        else if matches(close, at: pos) { length = 2 }
        guard length > 0 else { return false }
        tokens.append(TemplateToken(kind: block ? .blockEnd : .variableEnd, offset: pos))
        pos += length
        finishTag(sign: sign, trimNewline: block)
        return true
    }

    /// An operator of one or two bytes at `pos`; `depth` counts open brackets.
    private mutating func operatorToken(depth: inout Int) throws {
        let offset = pos
        let byte = bytes[pos]
        let next = pos + 1 < bytes.count ? bytes[pos + 1] : 0
        let isPair = switch (byte, next) {
        case (0x2F, 0x2F), (0x2A, 0x2A), (0x3D, 0x3D), (0x21, 0x3D), (0x3C, 0x3D), (0x3E, 0x3D): true
        default: false
        }
        if isPair {
            tokens.append(TemplateToken(kind: .op(String(decoding: bytes[pos...pos + 1], as: UTF8.self)), offset: offset))
            pos += 2
            return
        }
        let one = String(UnicodeScalar(byte))
        guard Self.operatorBytes.contains(byte) else {
            let scalar = String(decoding: bytes[pos..<min(pos + 4, bytes.count)], as: UTF8.self).unicodeScalars.first
            throw syntaxError("unexpected character '\(scalar.map(String.init) ?? one)'", at: offset)
        }
        if byte == 0x28 || byte == 0x5B || byte == 0x7B { depth += 1 }
        if byte == 0x29 || byte == 0x5D || byte == 0x7D {
            guard depth > 0 else { throw syntaxError("unexpected '\(one)'", at: offset) }
            depth -= 1
        }
        tokens.append(TemplateToken(kind: .op(one), offset: offset))
        pos += 1
    }

    private func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }

    private mutating func number() throws -> TemplateToken.Kind {
        let start = pos
        func digits() { while isDigit(pos) || (pos < bytes.count && bytes[pos] == 0x5F && isDigit(pos + 1)) { pos += 1 } }
        digits()
        var isFloat = false
        if pos < bytes.count, bytes[pos] == 0x2E, isDigit(pos + 1) {
            isFloat = true
            pos += 1
            digits()
        }
        if pos < bytes.count, bytes[pos] | 0x20 == 0x65 {
            var i = pos + 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            if isDigit(i) { isFloat = true; pos = i; digits() }
        }
        let text = String(decoding: bytes[start..<pos].filter { $0 != 0x5F }, as: UTF8.self)
        if !isFloat, let value = Int(text) { return .integer(value) }
        guard let value = Double(text) else { throw syntaxError("invalid number '\(text)'", at: start) }
        return .float(value)
    }

    /// A quoted string with Python's escapes; an unknown escape keeps its backslash.
    private mutating func string() throws -> String {
        let start = pos
        let quote = bytes[pos]
        pos += 1
        var out: [UInt8] = []
        while pos < bytes.count {
            let byte = bytes[pos]
            if byte == quote { pos += 1; return String(decoding: out, as: UTF8.self) }
            guard byte == 0x5C, pos + 1 < bytes.count else { out.append(byte); pos += 1; continue }
            let escape = bytes[pos + 1]
            pos += 2
            switch escape {
            case 0x6E: out.append(0x0A)
            case 0x74: out.append(0x09)
            case 0x72: out.append(0x0D)
            case 0x30: out.append(0x00)
            case 0x61: out.append(0x07)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x76: out.append(0x0B)
            case 0x0A: break
            case 0x5C, 0x27, 0x22: out.append(escape)
            case 0x78, 0x75, 0x55:
                let count = escape == 0x78 ? 2 : (escape == 0x75 ? 4 : 8)
                guard pos + count <= bytes.count,
                      let value = UInt32(String(decoding: bytes[pos..<pos + count], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(value)
                else { throw syntaxError("invalid escape in a string", at: pos - 2) }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                pos += count
            default: out.append(0x5C); out.append(escape)
            }
        }
        throw syntaxError("unterminated string", at: start)
    }
}
