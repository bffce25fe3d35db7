/// Translates a JSON Schema `pattern` into a GBNF expression for the contents of a JSON string.
///
/// Handles literals, `.`, character classes, `\d \w \s`, groups, alternation, the quantifiers
/// `* + ? {n} {n,} {n,m}` and the anchors `^` and `$` at the ends; an unanchored end matches any
/// text there, as JSON Schema's search semantics ask. Look-around, back-references, word
/// boundaries and Unicode properties throw ``Unsupported``.
struct RegexGrammar {
    struct Unsupported: Error { let reason: String }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private let char: String

    /// The expression for `pattern`; `char` names the rule for one JSON string character.
    static func expression(_ pattern: String, char: String) throws -> String {
        var body = Substring(pattern)
        let anchoredStart = body.hasPrefix("^")
        if anchoredStart { body = body.dropFirst() }
        var anchoredEnd = false
        if body.hasSuffix("$") {
            let backslashes = body.dropLast().reversed().prefix { $0 == "\\" }.count
            if backslashes % 2 == 0 {
                anchoredEnd = true
                body = body.dropLast()
            }
        }
        var parser = RegexGrammar(scalars: Array(body.unicodeScalars), char: char)
        let inner = try parser.alternation()
        if parser.position < parser.scalars.count {
            throw Unsupported(reason: "unbalanced parenthesis")
        }
        var parts: [String] = []
        if !anchoredStart { parts.append("\(char)*") }
        if !inner.isEmpty { parts.append(GrammarBuilder.group(inner)) }
        if !anchoredEnd { parts.append("\(char)*") }
        return parts.isEmpty ? #""""# : parts.joined(separator: " ")
    }

    private init(scalars: [Unicode.Scalar], char: String) {
        self.scalars = scalars
        self.char = char
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func alternation() throws -> String {
        var branches = [try sequence()]
        while current == "|" {
            position += 1
            branches.append(try sequence())
        }
        if branches.contains(where: \.isEmpty) {
            return branches.map { $0.isEmpty ? #""""# : GrammarBuilder.group($0) }.joined(separator: " | ")
        }
        return branches.count == 1 ? branches[0] : branches.map { GrammarBuilder.group($0) }.joined(separator: " | ")
    }

    private mutating func sequence() throws -> String {
        var items: [String] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            let atom = try self.atom()
            items.append(try quantified(atom))
        }
        return items.joined(separator: " ")
    }

    private mutating func quantified(_ atom: String) throws -> String {
        var result = atom
        guard let scalar = current else { return result }
        switch scalar {
        case "*": position += 1; result = GrammarBuilder.repetition(atom, min: 0, max: nil)
        case "+": position += 1; result = GrammarBuilder.repetition(atom, min: 1, max: nil)
        case "?": position += 1; result = GrammarBuilder.repetition(atom, min: 0, max: 1)
        case "{":
            guard let (low, high) = braces() else { return result }
            if let high, high < low { throw Unsupported(reason: "a repetition {\(low),\(high)} counts backwards") }
            result = GrammarBuilder.repetition(atom, min: low, max: high)
            if result.isEmpty { result = #""""# }
        default: return result
        }
        if current == "?" || current == "+" { position += 1 } // lazy and possessive forms match the same strings
        if let next = current, "*+?".unicodeScalars.contains(next) {
            throw Unsupported(reason: "a quantifier follows a quantifier")
        }
        return result
    }

    /// Reads `{n}`, `{n,}` or `{n,m}`; nil (and nothing consumed) when the brace is a literal.
    private mutating func braces() -> (Int, Int?)? {
        var index = position + 1
        var text = ""
        while index < scalars.count, scalars[index] != "}" {
            text.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let low = Int(parts[0]) else { return nil }
        var high: Int? = low
        if parts.count == 2 {
            if parts[1].isEmpty { high = nil } else if let value = Int(parts[1]) { high = value } else { return nil }
        }
        position = index + 1
        return (low, high)
    }

    private mutating func atom() throws -> String {
        guard let scalar = current else { throw Unsupported(reason: "the pattern ends early") }
        position += 1
        switch scalar {
        case "(":
            if current == "?" {
                guard position + 1 < scalars.count, scalars[position + 1] == ":" else {
                    throw Unsupported(reason: "look-around and named groups are not supported")
                }
                position += 2
            }
            let inner = try alternation()
            guard current == ")" else { throw Unsupported(reason: "unbalanced parenthesis") }
            position += 1
            return inner.isEmpty ? #""""# : "(\(inner))"
        case "[": return try characterClass()
        case ".": return char
        case "^", "$": throw Unsupported(reason: "an anchor inside the pattern")
        case "*", "+", "?": throw Unsupported(reason: "a quantifier with nothing to repeat")
        case "\\":
            switch try escape(inClass: false) {
            case .set(let ranges): return RegexGrammar.positive(ranges)
            case .scalar(let value): return RegexGrammar.literal(value)
            }
        default: return RegexGrammar.literal(scalar)
        }
    }

    private enum Escape {
        case scalar(Unicode.Scalar)
        case set([ClosedRange<UInt32>])
    }

    private static let digit: [ClosedRange<UInt32>] = [0x30...0x39]
    private static let word: [ClosedRange<UInt32>] = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
    private static let space: [ClosedRange<UInt32>] = [0x09...0x0D, 0x20...0x20]

    /// Reads what follows a backslash.
    private mutating func escape(inClass: Bool) throws -> Escape {
        guard let scalar = current else { throw Unsupported(reason: "the pattern ends with a backslash") }
        position += 1
        switch scalar {
        case "d": return .set(RegexGrammar.digit)
        case "w": return .set(RegexGrammar.word)
        case "s": return .set(RegexGrammar.space)
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "v": return .scalar("\u{0B}")
        case "0": return .scalar("\u{00}")
        case "x", "u":
            let count = scalar == "x" ? 2 : 4
            guard position + count <= scalars.count,
                  let value = UInt32(String(String.UnicodeScalarView(scalars[position..<(position + count)])), radix: 16),
                  let result = Unicode.Scalar(value) else {
                throw Unsupported(reason: "a malformed \\\(scalar) escape")
            }
            position += count
            return .scalar(result)
        case "b" where inClass: return .scalar("\u{08}")
        default:
            if scalar.properties.isAlphabetic || ("1"..."9").contains(scalar) {
                throw Unsupported(reason: "the escape \\\(scalar) is not supported")
            }
            return .scalar(scalar)
        }
    }

    private mutating func characterClass() throws -> String {
        var negated = false
        if current == "^" { negated = true; position += 1 }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while true {
            guard let scalar = current else { throw Unsupported(reason: "an unterminated character class") }
            if scalar == "]" && !first { position += 1; break }
            first = false
            position += 1
            var low: UInt32
            if scalar == "\\" {
                switch try escape(inClass: true) {
                case .set(let set): ranges += set; continue
                case .scalar(let value): low = value.value
                }
            } else if scalar == "[" && current == ":" {
                throw Unsupported(reason: "POSIX classes are not supported")
            } else {
                low = scalar.value
            }
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                position += 1
                guard let end = current else { throw Unsupported(reason: "an unterminated character class") }
                position += 1
                var high = end.value
                if end == "\\" {
                    guard case .scalar(let value) = try escape(inClass: true) else {
                        throw Unsupported(reason: "a class shorthand ends a range")
                    }
                    high = value.value
                }
                guard low <= high else { throw Unsupported(reason: "a character range runs backwards") }
                ranges.append(low...high)
            } else {
                ranges.append(low...low)
            }
        }
        return negated ? RegexGrammar.negative(ranges) : RegexGrammar.positive(ranges)
    }

    /// Characters JSON writes escaped inside strings.
    private static func needsEscape(_ value: UInt32) -> Bool {
        value < 0x20 || value == 0x22 || value == 0x5C || value == 0x7F
    }

    /// One character as it appears inside a JSON string, as a GBNF literal.
    private static func literal(_ scalar: Unicode.Scalar) -> String {
        Grammar.literal(String(JSONValue.string(String(scalar)).jsonText().dropFirst().dropLast()))
    }

    /// Any of the characters in `ranges`, as they appear inside a JSON string.
    private static func positive(_ ranges: [ClosedRange<UInt32>]) -> String {
        var plain: [ClosedRange<UInt32>] = []
        var escaped: [String] = []
        for range in ranges {
            var start = range.lowerBound
            for value in range {
                if needsEscape(value) {
                    if start < value { plain.append(start...(value - 1)) }
                    if let scalar = Unicode.Scalar(value) { escaped.append(literal(scalar)) }
                    start = value + 1
                }
                if value > 0x7F { break }
            }
            if start <= range.upperBound { plain.append(start...range.upperBound) }
        }
        var alternatives: [String] = []
        if !plain.isEmpty { alternatives.append("[" + plain.map(rangeText).joined() + "]") }
        alternatives += escaped
        if alternatives.isEmpty { return #""""# }
        return alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " | ") + ")"
    }

    /// Any character outside `ranges` that JSON writes unescaped.
    private static func negative(_ ranges: [ClosedRange<UInt32>]) -> String {
        #"[^"\\\x7F\x00-\x1F"# + ranges.map(rangeText).joined() + "]"
    }

    private static func rangeText(_ range: ClosedRange<UInt32>) -> String {
        range.count == 1 ? scalarText(range.lowerBound) : scalarText(range.lowerBound) + "-" + scalarText(range.upperBound)
    }

    private static func scalarText(_ value: UInt32) -> String {
        guard let scalar = Unicode.Scalar(value) else { return Grammar.hexEscape(value) }
        if (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") {
            return String(scalar)
        }
        return Grammar.hexEscape(value)
    }
}
