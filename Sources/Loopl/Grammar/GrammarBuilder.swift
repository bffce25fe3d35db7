/// Collects named GBNF rules, keeps their names unique, and prints them root first.
struct GrammarBuilder: Sendable {
    private(set) var names: [String] = []
    private var bodies: [String: String] = [:]
    private var reserved: Set<String> = []
    /// The whitespace the `space` rule allows.
    var spacing: GrammarSpacing = .separated

    /// Built-in rules: JSON's lexical pieces; `space` is the builder's ``spacing``, `line-space`
    /// (between a thinking block and a call) always llama.cpp's converter's whitespace.
    static let primitives: [String: (body: String, uses: [String])] = [
        "space": (GrammarSpacing.compact.spaceRule, []),
        "line-space": (GrammarSpacing.spacious.spaceRule, []),
        "boolean": (#""true" | "false""#, []),
        "null": (#""null""#, []),
        "integral-part": (#""0" | [1-9] [0-9]{0,15}"#, []),
        "decimal-part": (#"[0-9]{1,16}"#, []),
        "integer": (#""-"? integral-part"#, ["integral-part"]),
        "number": (#""-"? integral-part ("." decimal-part)? ([eE] [-+]? integral-part)?"#,
                   ["integral-part", "decimal-part"]),
        "char": (#"[^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})"#, []),
        "string": (#""\"" char* "\"""#, ["char"]),
        "value": ("object | array | string | number | boolean | null",
                  ["object", "array", "string", "number", "boolean", "null"]),
        "object": (#""{" space ( string ":" space value ("," space string ":" space value)* )? space "}""#,
                   ["space", "string", "value"]),
        "array": (#""[" space ( value ("," space value)* )? space "]""#, ["space", "value"]),
        "uuid": (#""\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12} "\"""#, []),
        "date": (#"[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )"#, []),
        "time": (#"([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )"#, []),
        "date-time": (#"date "T" time"#, ["date", "time"]),
        "date-string": (#""\"" date "\"""#, ["date"]),
        "time-string": (#""\"" time "\"""#, ["time"]),
        "date-time-string": (#""\"" date-time "\"""#, ["date-time"]),
    ]

    /// True for names that rules made from schemas must not take.
    static func isReserved(_ name: String) -> Bool {
        name == "root" || primitives[name] != nil
    }

    /// `text` with every character a rule name cannot hold replaced by `-`.
    static func ruleName(_ text: String) -> String {
        var out = ""
        var lastWasDash = false
        for scalar in text.unicodeScalars {
            let ok = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                || (scalar >= "0" && scalar <= "9") || scalar == "-"
            if ok {
                out.unicodeScalars.append(scalar)
                lastWasDash = false
            } else if !lastWasDash {
                out += "-"
                lastWasDash = true
            }
        }
        return out.isEmpty ? "r" : out
    }

    /// Adds `name ::= body` and returns the name used: `name` itself, or `name` with a number
    /// when another body already holds it. The same body under the same name is stored once.
    @discardableResult
    mutating func add(_ name: String, _ body: String) -> String {
        let base = GrammarBuilder.ruleName(name)
        var candidate = base
        var n = 0
        while true {
            if let existing = bodies[candidate], existing == body { return candidate }
            if bodies[candidate] == nil && !reserved.contains(candidate) { break }
            n += 1
            candidate = base + String(n)
        }
        names.append(candidate)
        bodies[candidate] = body
        return candidate
    }

    /// Takes a unique name now, to be given its body later by ``define(_:_:)``; recursive rules need this.
    mutating func reserve(_ name: String) -> String {
        let base = GrammarBuilder.ruleName(name)
        var candidate = base
        var n = 0
        while bodies[candidate] != nil || reserved.contains(candidate) {
            n += 1
            candidate = base + String(n)
        }
        reserved.insert(candidate)
        return candidate
    }

    /// Gives a reserved name its body.
    mutating func define(_ name: String, _ body: String) {
        reserved.remove(name)
        if bodies[name] == nil { names.append(name) }
        bodies[name] = body
    }

    /// Adds a built-in rule and the built-ins it uses; returns its name.
    @discardableResult
    mutating func primitive(_ name: String) -> String {
        guard bodies[name] == nil, let rule = GrammarBuilder.primitives[name] else { return name }
        names.append(name)
        bodies[name] = name == "space" ? spacing.spaceRule : rule.body
        for use in rule.uses { primitive(use) }
        return name
    }

    /// Rules for any text that does not contain `delimiter`, one rule per state of the matcher
    /// that looks for it; returns the start rule's name. When `followedBy` is given, the text may
    /// also not end so that `followedBy` completes the delimiter early. With `trimmed`, the text
    /// neither starts nor ends with a line break.
    mutating func textWithout(_ delimiter: String, name: String, followedBy: String = "", trimmed: Bool = false) -> String {
        let pattern = Array(delimiter.unicodeScalars)
        guard !pattern.isEmpty else { return primitive("string") }
        let matcher = DelimiterMatcher(pattern)
        let newlines: [Unicode.Scalar] = trimmed ? ["\n", "\r"] : []
        var special = matcher.alphabet
        for scalar in newlines where !special.contains(scalar) { special.append(scalar) }
        let others = "[^" + special.map { Trie.classText(Character($0)) }.joined() + "]"
        let follow = Array(followedBy.unicodeScalars)
        // States: matcher position, and whether the last character was a line break.
        var names: [[String]] = []
        for state in 0..<pattern.count {
            names.append([reserve(name + "-\(state)")] + (trimmed ? [reserve(name + "-\(state)-nl")] : []))
        }
        func alternatives(from state: Int, allowingNewline: Bool) -> [String] {
            var out: [String] = []
            for scalar in special where allowingNewline || !newlines.contains(scalar) {
                let next = matcher.advance(state, scalar)
                guard next < pattern.count else { continue }
                let target = names[next][newlines.contains(scalar) ? 1 : 0]
                out.append(Grammar.literal(String(scalar)) + " " + target)
            }
            return out + ["\(others) \(names[0][0])"]
        }
        for state in 0..<pattern.count {
            let canEnd = matcher.firstMatchEnd(from: state, reading: follow).map { $0 + 1 >= pattern.count } ?? true
            let body = "( " + alternatives(from: state, allowingNewline: true).joined(separator: " | ") + " )"
            define(names[state][0], canEnd ? body + "?" : body)
            if trimmed { define(names[state][1], body) }
        }
        guard trimmed else { return names[0][0] }
        let canEnd = matcher.firstMatchEnd(from: 0, reading: follow).map { $0 + 1 >= pattern.count } ?? true
        let body = "( " + alternatives(from: 0, allowingNewline: false).joined(separator: " | ") + " )"
        return add(name + "-start", canEnd ? body + "?" : body)
    }

    /// The rules as GBNF text, `root` first.
    func text(root: String = "root") -> String {
        var lines: [String] = []
        if let body = bodies[root] { lines.append("\(root) ::= \(spacing.separated(body))") }
        for name in names where name != root {
            if let body = bodies[name] { lines.append("\(name) ::= \(spacing.separated(body))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `expression` in parentheses unless it is a single name, literal or class.
    static func group(_ expression: String) -> String {
        if !expression.isEmpty, expression.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { return expression }
        if let first = expression.first, first == "\"" || first == "[" {
            let close: Character = first == "\"" ? "\"" : "]"
            var escaped = false
            for (offset, character) in expression.dropFirst().enumerated() {
                if escaped { escaped = false; continue }
                if character == "\\" { escaped = true; continue }
                if character == close { return offset == expression.count - 2 ? expression : "(\(expression))" }
            }
        }
        return "(\(expression))"
    }

    /// `item` repeated between `min` and `max` times (nil: no upper bound), with `separator` between items.
    static func repetition(_ item: String, min: Int, max: Int?, separator: String = "") -> String {
        if max == 0 { return "" }
        if separator.isEmpty || (min == 0 && max == 1) {
            let unit = group(item)
            switch (min, max) {
            case (0, 1?): return "\(unit)?"
            case (0, nil): return "\(unit)*"
            case (1, nil): return "\(unit)+"
            case (_, nil): return "\(unit){\(min),}"
            case (_, let max?): return min == max ? "\(unit){\(min)}" : "\(unit){\(min),\(max)}"
            }
        }
        let rest = repetition("\(separator) \(item)", min: Swift.max(min - 1, 0), max: max.map { $0 - 1 })
        let run = rest.isEmpty ? item : "\(item) \(rest)"
        return min == 0 ? "(\(run))?" : run
    }
}

/// Follows how much of a delimiter the text read so far ends with.
struct DelimiterMatcher {
    let pattern: [Unicode.Scalar]
    /// The delimiter's distinct characters, in order of first appearance.
    let alphabet: [Unicode.Scalar]

    init(_ pattern: [Unicode.Scalar]) {
        self.pattern = pattern
        var seen: [Unicode.Scalar] = []
        for scalar in pattern where !seen.contains(scalar) { seen.append(scalar) }
        alphabet = seen
    }

    /// The length of the longest prefix of the delimiter that ends the text, after `scalar` follows
    /// a text that ended with `state` characters of it.
    func advance(_ state: Int, _ scalar: Unicode.Scalar) -> Int {
        let text = Array(pattern[0..<min(state, pattern.count)]) + [scalar]
        var length = min(text.count, pattern.count)
        while length > 0, Array(text[(text.count - length)...]) != Array(pattern[0..<length]) { length -= 1 }
        return length
    }

    /// The index in `text` where the delimiter is first completed, reading from `state`; nil if never.
    func firstMatchEnd(from state: Int, reading text: [Unicode.Scalar]) -> Int? {
        var state = state
        for (index, scalar) in text.enumerated() {
            state = advance(state, scalar)
            if state == pattern.count { return index }
        }
        return nil
    }
}
