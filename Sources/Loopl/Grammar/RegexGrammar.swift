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

    /// One item of a pattern that is a plain sequence: an expression for one character, repeated.
    struct Run {
        let atom: String
        let min: Int
        let max: Int?
    }

    /// The lengths a string may have (JSON Schema's `minLength` and `maxLength`, in characters).
    struct Lengths {
        let min: Int
        let max: Int?
    }

    /// The expression for `pattern`; `char` names the rule for one JSON string character.
    ///
    /// With `lengths`, the expression matches only strings of those lengths too. That is exact
    /// when the pattern is a sequence of one-character items (classes, literals, `.`, escapes,
    /// each with a quantifier) of which at most one varies in length, as `^[a-z][a-z0-9_]*$`;
    /// other patterns throw ``Unsupported`` with lengths.
    static func expression(_ pattern: String, char: String, lengths: Lengths? = nil) throws -> String {
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
        let (inner, innerRuns) = try parser.alternation()
        if parser.position < parser.scalars.count {
            throw Unsupported(reason: "unbalanced parenthesis")
        }
        let any = Run(atom: char, min: 0, max: nil)
        if let lengths {
            guard let innerRuns else { throw Unsupported(reason: "minLength or maxLength with a pattern that is not a plain sequence") }
            return try bounded((anchoredStart ? [] : [any]) + innerRuns + (anchoredEnd ? [] : [any]), lengths)
        }
        var parts: [String] = []
        if !anchoredStart { parts.append("\(char)*") }
        if !inner.isEmpty { parts.append(GrammarBuilder.group(inner)) }
        if !anchoredEnd { parts.append("\(char)*") }
        return parts.isEmpty ? #""""# : parts.joined(separator: " ")
    }

    /// `runs` in sequence, held to `lengths` by narrowing the one run that varies.
    private static func bounded(_ runs: [Run], _ lengths: Lengths) throws -> String {
        let shortest = runs.map(\.min).reduce(0, +)
        let longest = runs.reduce(Optional(0)) { total, run in total.flatMap { sum in run.max.map { sum + $0 } } }
        if shortest >= lengths.min, let longest, lengths.max.map({ longest <= $0 }) ?? true {
            // The pattern alone keeps to the bounds.
            let parts = runs.map { GrammarBuilder.repetition($0.atom, min: $0.min, max: $0.max) }.filter { !$0.isEmpty }
            return parts.isEmpty ? #""""# : parts.joined(separator: " ")
        }
        let varying = runs.indices.filter { runs[$0].min != runs[$0].max }
        guard varying.count <= 1 else { throw Unsupported(reason: "minLength or maxLength with more than one part of varying length") }
        let fixed = runs.indices.filter { !varying.contains($0) }.map { runs[$0].min }.reduce(0, +)
        var narrowed = runs
        if let index = varying.first {
            let run = runs[index]
            let low = Swift.max(run.min, lengths.min - fixed)
            let high = [run.max, lengths.max.map { $0 - fixed }].compactMap { $0 }.min()
            if let high, high < low { throw noString }
            narrowed[index] = Run(atom: run.atom, min: low, max: high)
        } else if fixed < lengths.min || lengths.max.map({ fixed > $0 }) == true {
            throw noString
        }
        let parts = narrowed.map { GrammarBuilder.repetition($0.atom, min: $0.min, max: $0.max) }.filter { !$0.isEmpty }
        return parts.isEmpty ? #""""# : parts.joined(separator: " ")
    }

    private static let noString = LooplError(.invalidRequest, "No string matches both the `pattern` and `minLength`/`maxLength`.")

    private init(scalars: [Unicode.Scalar], char: String) {
        self.scalars = scalars
        self.char = char
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    /// The branches' expression, and the runs of a single plain branch.
    private mutating func alternation() throws -> (String, [Run]?) {
        var branches = [try sequence()]
        while current == "|" {
            position += 1
            branches.append(try sequence())
        }
        let texts = branches.map(\.0)
        if texts.contains(where: \.isEmpty) {
            return (texts.map { $0.isEmpty ? #""""# : GrammarBuilder.group($0) }.joined(separator: " | "), nil)
        }
        return texts.count == 1 ? (texts[0], branches[0].1) : (texts.map { GrammarBuilder.group($0) }.joined(separator: " | "), nil)
    }

    /// The items' expression, and their runs when every item is one character repeated.
    private mutating func sequence() throws -> (String, [Run]?) {
        var items: [String] = []
        var runs: [Run]? = []
        while let scalar = current, scalar != "|", scalar != ")" {
            let (atom, oneCharacter) = try self.atom()
            let (text, run) = try quantified(atom)
            items.append(text)
            runs = oneCharacter ? runs.map { $0 + [run] } : nil
        }
        return (items.joined(separator: " "), runs)
    }

    private mutating func quantified(_ atom: String) throws -> (String, Run) {
        var (low, high): (Int, Int?) = (1, 1)
        guard let scalar = current else { return (atom, Run(atom: atom, min: 1, max: 1)) }
        switch scalar {
        case "*": position += 1; (low, high) = (0, nil)
        case "+": position += 1; (low, high) = (1, nil)
        case "?": position += 1; (low, high) = (0, 1)
        case "{":
            guard let bounds = braces() else { return (atom, Run(atom: atom, min: 1, max: 1)) }
            (low, high) = bounds
            if let high, high < low { throw Unsupported(reason: "a repetition {\(low),\(high)} counts backwards") }
        default: return (atom, Run(atom: atom, min: 1, max: 1))
        }
        if current == "?" || current == "+" { position += 1 } // lazy and possessive forms match the same strings
        if let next = current, "*+?".unicodeScalars.contains(next) {
            throw Unsupported(reason: "a quantifier follows a quantifier")
        }
        let result = GrammarBuilder.repetition(atom, min: low, max: high)
        return (result.isEmpty ? #""""# : result, Run(atom: atom, min: low, max: high))
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

    /// The next atom's expression, and whether it matches exactly one character.
    private mutating func atom() throws -> (String, Bool) {
        guard let scalar = current else { throw Unsupported(reason: "the pattern ends early") }
        if scalar == "(" { return (try group(), false) }
        position += 1
        switch scalar {
        case "[": return (try characterClass(), true)
        case ".": return (char, true)
        case "^", "$": throw Unsupported(reason: "an anchor inside the pattern")
        case "*", "+", "?": throw Unsupported(reason: "a quantifier with nothing to repeat")
        case "\\":
            switch try escape(inClass: false) {
            case .set(let ranges): return (RegexGrammar.positive(ranges), true)
            case .scalar(let value): return (RegexGrammar.literal(value), true)
            }
        default: return (RegexGrammar.literal(scalar), true)
        }
    }

    private mutating func group() throws -> String {
        guard current == "(" else { throw Unsupported(reason: "a group was expected") }
        position += 1
        if current == "?" {
            guard position + 1 < scalars.count, scalars[position + 1] == ":" else {
                throw Unsupported(reason: "look-around and named groups are not supported")
            }
            position += 2
        }
        let (inner, _) = try alternation()
        guard current == ")" else { throw Unsupported(reason: "unbalanced parenthesis") }
        position += 1
        return inner.isEmpty ? #""""# : "(\(inner))"
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
