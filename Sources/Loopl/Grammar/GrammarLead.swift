/// The text every string of a grammar starts with: the opening that leaves the model no choice
/// (`<tool_call>\n{"name": "add", "arguments": ` for a call forced to one tool). A backend that can
/// advance its grammar writes it into the prompt instead of sampling it token by token.
///
/// A reading of the GBNF that Loopl writes: literals, rule names, groups, alternatives and
/// repetitions; anything else (a character class, an optional part) ends the lead, and so does
/// a rule that `stops` names. The lead may be shorter than the longest forced text, never longer.
package struct GrammarLead {
    private typealias Scalars = [Unicode.Scalar]
    private var rules: [String: Substring] = [:]
    private var visiting: Set<String> = []
    private let stops: (String) -> Bool

    /// The lead of `grammar` up to the first rule that `stops` names; empty for a lazy grammar.
    package static func text(of grammar: Grammar, stoppingAt stops: @escaping (String) -> Bool = { _ in false }) -> String {
        guard !grammar.lazy else { return "" }
        var reader = GrammarLead(stops: stops)
        for line in grammar.gbnf.split(separator: "\n") {
            guard let arrow = line.firstRange(of: " ::= ") else { continue }
            reader.rules[String(line[..<arrow.lowerBound])] = line[arrow.upperBound...]
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: reader.rule(grammar.root).text)
        return String(out)
    }

    /// The lead of a rule, and whether it is the rule's only string.
    private mutating func rule(_ name: String) -> (text: Scalars, whole: Bool) {
        guard !stops(name), let body = rules[name], visiting.insert(name).inserted else { return ([], false) }
        defer { visiting.remove(name) }
        var cursor = Cursor(scalars: Array(body.unicodeScalars))
        return alternatives(&cursor)
    }

    /// Alternatives up to a closing parenthesis or the end: the common start of their leads.
    private mutating func alternatives(_ cursor: inout Cursor) -> (text: Scalars, whole: Bool) {
        var leads = [sequence(&cursor)]
        while cursor.skip("|") { leads.append(sequence(&cursor)) }
        guard let first = leads.first, leads.count > 1 else { return leads[0] }
        if leads.allSatisfy({ $0.whole && $0.text == first.text }) { return first }
        var common = first.text
        for lead in leads.dropFirst() {
            common = Array(zip(common, lead.text).prefix { $0.0 == $0.1 }.map(\.0))
        }
        return (common, false)
    }

    /// One alternative: its elements' leads joined up to the first that is not whole.
    private mutating func sequence(_ cursor: inout Cursor) -> (text: Scalars, whole: Bool) {
        var text: Scalars = []
        var whole = true
        while let next = cursor.peek(), next != "|", next != ")" {
            var lead = element(&cursor)
            switch cursor.quantifier() {
            case .once: break
            case .exactly(let count) where lead.whole: lead.text = Array(repeating: lead.text, count: count).flatMap { $0 }
            case .exactly: break
            case .atLeastOnce: lead.whole = false
            case .optional: lead = ([], false)
            }
            if whole { text += lead.text }
            whole = whole && lead.whole
        }
        return (text, whole)
    }

    private mutating func element(_ cursor: inout Cursor) -> (text: Scalars, whole: Bool) {
        guard let first = cursor.peek() else { return ([], false) }
        switch first {
        case "\"": return cursor.literal().map { ($0, true) } ?? ([], false)
        case "(":
            cursor.advance()
            let lead = alternatives(&cursor)
            _ = cursor.skip(")")
            return lead
        case "[":
            cursor.skipClass()
            return ([], false)
        default:
            let name = cursor.name()
            return name.isEmpty ? cursor.skipUnknown() : rule(name)
        }
    }
}

/// Reads the body of one GBNF rule.
private struct Cursor {
    enum Quantifier { case once, exactly(Int), atLeastOnce, optional }

    let scalars: [Unicode.Scalar]
    var index = 0

    mutating func skipSpaces() {
        while index < scalars.count, scalars[index] == " " { index += 1 }
    }

    mutating func peek() -> Unicode.Scalar? {
        skipSpaces()
        return index < scalars.count ? scalars[index] : nil
    }

    mutating func advance() { index += 1 }

    mutating func skip(_ scalar: Unicode.Scalar) -> Bool {
        guard peek() == scalar else { return false }
        index += 1
        return true
    }

    /// A quoted literal's text, or nil when an escape is not one Loopl writes.
    mutating func literal() -> [Unicode.Scalar]? {
        index += 1
        var out: [Unicode.Scalar] = []
        while index < scalars.count, scalars[index] != "\"" {
            var scalar = scalars[index]
            index += 1
            if scalar == "\\", index < scalars.count {
                let escape = scalars[index]
                index += 1
                switch escape {
                case "n": scalar = "\n"
                case "r": scalar = "\r"
                case "t": scalar = "\t"
                case "\\", "\"", "[", "]": scalar = escape
                case "x", "u", "U":
                    let count = escape == "x" ? 2 : escape == "u" ? 4 : 8
                    let digits = String(String.UnicodeScalarView(scalars[index..<min(index + count, scalars.count)]))
                    index += count
                    guard let value = UInt32(digits, radix: 16).flatMap(Unicode.Scalar.init) else { return nil }
                    scalar = value
                default: return nil
                }
            }
            out.append(scalar)
        }
        index += 1
        return out
    }

    mutating func skipClass() {
        index += 1
        while index < scalars.count, scalars[index] != "]" { index += scalars[index] == "\\" ? 2 : 1 }
        index += 1
    }

    mutating func name() -> String {
        let start = index
        while index < scalars.count, scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                || scalars[index] == "-" || scalars[index] == "_" { index += 1 }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// Anything else (`.`): one scalar, not whole.
    mutating func skipUnknown() -> (text: [Unicode.Scalar], whole: Bool) {
        index += 1
        return ([], false)
    }

    /// The quantifier after an element (none: once).
    mutating func quantifier() -> Quantifier {
        guard index < scalars.count else { return .once }
        switch scalars[index] {
        case "?", "*":
            index += 1
            return .optional
        case "+":
            index += 1
            return .atLeastOnce
        case "{":
            let start = index + 1
            while index < scalars.count, scalars[index] != "}" { index += 1 }
            let inside = String(String.UnicodeScalarView(scalars[start..<min(index, scalars.count)]))
            index += 1
            let bounds = inside.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingPrefix(" ")) }
            guard let low = bounds.first ?? nil, low > 0 else { return .optional }
            return bounds.count == 1 ? .exactly(low) : .atLeastOnce
        default:
            return .once
        }
    }
}
