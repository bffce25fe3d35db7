/// Collects named GBNF rules, keeps their names unique, and prints them root first.
struct GrammarBuilder: Sendable {
    private(set) var names: [String] = []
    private var bodies: [String: String] = [:]
    private var reserved: Set<String> = []

    /// Built-in rules: JSON's lexical pieces, with the whitespace that llama.cpp's converter allows.
    static let primitives: [String: (body: String, uses: [String])] = [
        "space": (#"| " " | "\n"{1,2} [ \t]{0,20}"#, []),
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
        bodies[name] = rule.body
        for use in rule.uses { primitive(use) }
        return name
    }

    /// Rules for any text that does not contain `delimiter`, one rule per state of the matcher
    /// that looks for it; returns the start rule's name. The delimiter's first character must not
    /// occur again in it.
    mutating func textWithout(_ delimiter: String, name: String) -> String {
        let characters = Array(delimiter)
        guard let first = characters.first, !characters.dropFirst().contains(first) else { return primitive("string") }
        let states = (0..<characters.count).map { reserve(name + "-\($0)") }
        let firstClass = Trie.classText(first)
        let restart = states.count > 1 ? " | \(Grammar.literal(String(first))) \(states[1])" : ""
        define(states[0], "( [^\(firstClass)] \(states[0])\(restart) )?")
        for index in 1..<characters.count {
            let next = characters[index]
            var alternatives = ["\(Grammar.literal(String(first))) \(states[1])"]
            if index + 1 < characters.count {
                alternatives.append("\(Grammar.literal(String(next))) \(states[index + 1])")
            }
            alternatives.append("[^\(firstClass)\(Trie.classText(next))] \(states[0])")
            define(states[index], "( " + alternatives.joined(separator: " | ") + " )?")
        }
        return states[0]
    }

    /// The rules as GBNF text, `root` first.
    func text(root: String = "root") -> String {
        var lines: [String] = []
        if let body = bodies[root] { lines.append("\(root) ::= \(body)") }
        for name in names where name != root {
            if let body = bodies[name] { lines.append("\(name) ::= \(body)") }
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
