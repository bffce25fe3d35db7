/// A small GBNF reader for tests: it parses the rules Loopl generates, tells whether a string
/// matches, and samples random strings. It is an independent second reading of the grammar text.
struct GBNF {
    indirect enum Element {
        case literal([UInt32])
        case characters(negated: Bool, ranges: [ClosedRange<UInt32>])
        case rule(String)
        case group([[Element]])
        case repeated(Element, min: Int, max: Int?)
    }

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var rules: [String: [[Element]]] = [:]

    init(_ text: String) throws {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            guard let arrow = line.firstRange(of: " ::= ") else { throw ParseError(description: "no ::= in \(line)") }
            let name = String(line[..<arrow.lowerBound])
            guard rules[name] == nil else { throw ParseError(description: "rule \(name) defined twice") }
            var reader = Reader(Array(line[arrow.upperBound...].unicodeScalars))
            rules[name] = try reader.alternatives()
            guard reader.atEnd else { throw ParseError(description: "trailing text in rule \(name)") }
        }
        for (name, body) in rules {
            for reference in GBNF.references(body) where rules[reference] == nil {
                throw ParseError(description: "rule \(name) uses undefined rule \(reference)")
            }
        }
    }

    private static func references(_ alternatives: [[Element]]) -> [String] {
        alternatives.flatMap { $0.flatMap(references) }
    }

    private static func references(_ element: Element) -> [String] {
        switch element {
        case .rule(let name): [name]
        case .group(let alternatives): references(alternatives)
        case .repeated(let inner, _, _): references(inner)
        default: []
        }
    }

    private struct Reader {
        let s: [Unicode.Scalar]
        var i = 0
        init(_ s: [Unicode.Scalar]) { self.s = s }
        var atEnd: Bool { mutating get { skipSpace(); return i >= s.count } }

        mutating func skipSpace() { while i < s.count, s[i] == " " || s[i] == "\n" || s[i] == "\t" { i += 1 } }

        mutating func alternatives() throws -> [[Element]] {
            var result = [try sequence()]
            while true {
                skipSpace()
                guard i < s.count, s[i] == "|" else { return result }
                i += 1
                result.append(try sequence())
            }
        }

        mutating func sequence() throws -> [Element] {
            var items: [Element] = []
            while true {
                skipSpace()
                guard i < s.count, s[i] != "|", s[i] != ")" else { return items }
                var element = try primary()
                postfix: while i < s.count {
                    switch s[i] {
                    case "*": i += 1; element = .repeated(element, min: 0, max: nil)
                    case "+": i += 1; element = .repeated(element, min: 1, max: nil)
                    case "?": i += 1; element = .repeated(element, min: 0, max: 1)
                    case "{":
                        i += 1
                        var text = ""
                        while i < s.count, s[i] != "}" { text.unicodeScalars.append(s[i]); i += 1 }
                        i += 1
                        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
                        guard let low = Int(parts[0]) else { throw ParseError(description: "bad repetition {\(text)}") }
                        let high: Int? = parts.count == 1 ? low : Int(parts[1])
                        element = .repeated(element, min: low, max: high)
                    default: break postfix
                    }
                }
                items.append(element)
            }
        }

        mutating func primary() throws -> Element {
            let c = s[i]
            if c == "\"" {
                i += 1
                var out: [UInt32] = []
                while i < s.count, s[i] != "\"" { out.append(try character()) }
                guard i < s.count else { throw ParseError(description: "unterminated literal") }
                i += 1
                return .literal(out)
            }
            if c == "[" {
                i += 1
                var negated = false
                if i < s.count, s[i] == "^" { negated = true; i += 1 }
                var ranges: [ClosedRange<UInt32>] = []
                while i < s.count, s[i] != "]" {
                    let low = try character()
                    if i + 1 < s.count, s[i] == "-", s[i + 1] != "]" {
                        i += 1
                        let high = try character()
                        guard low <= high else { throw ParseError(description: "backward range") }
                        ranges.append(low...high)
                    } else {
                        ranges.append(low...low)
                    }
                }
                guard i < s.count else { throw ParseError(description: "unterminated class") }
                i += 1
                return .characters(negated: negated, ranges: ranges)
            }
            if c == "(" {
                i += 1
                let inner = try alternatives()
                skipSpace()
                guard i < s.count, s[i] == ")" else { throw ParseError(description: "unbalanced (") }
                i += 1
                return .group(inner)
            }
            var name = ""
            while i < s.count, s[i].properties.isAlphabetic || ("0"..."9").contains(s[i]) || s[i] == "-" {
                name.unicodeScalars.append(s[i]); i += 1
            }
            guard !name.isEmpty else { throw ParseError(description: "unexpected \(c) at \(i)") }
            return .rule(name)
        }

        mutating func character() throws -> UInt32 {
            let c = s[i]
            i += 1
            guard c == "\\" else { return c.value }
            guard i < s.count else { throw ParseError(description: "trailing backslash") }
            let e = s[i]
            i += 1
            switch e {
            case "n": return 10
            case "r": return 13
            case "t": return 9
            case "\\", "\"", "[", "]", "-": return e.value
            case "x", "u", "U":
                let n = e == "x" ? 2 : e == "u" ? 4 : 8
                guard i + n <= s.count, let v = UInt32(String(String.UnicodeScalarView(s[i..<i + n])), radix: 16) else {
                    throw ParseError(description: "bad hex escape")
                }
                i += n
                return v
            default: throw ParseError(description: "unknown escape \\\(e)")
            }
        }
    }

    // MARK: Matching

    /// True when the whole of `text` matches `root`.
    func matches(_ text: String, root: String = "root") -> Bool {
        var matcher = Matcher(rules: rules, text: text.unicodeScalars.map(\.value))
        return matcher.ends(of: .rule(root), from: 0).contains(matcher.text.count)
    }

    private struct Matcher {
        let rules: [String: [[Element]]]
        let text: [UInt32]
        var memo: [String: [Int: Set<Int>]] = [:]

        init(rules: [String: [[Element]]], text: [UInt32]) {
            self.rules = rules
            self.text = text
        }

        mutating func ends(of alternatives: [[Element]], from start: Int) -> Set<Int> {
            var result: Set<Int> = []
            for sequence in alternatives {
                var positions: Set<Int> = [start]
                for element in sequence {
                    var next: Set<Int> = []
                    for p in positions { next.formUnion(ends(of: element, from: p)) }
                    positions = next
                    if positions.isEmpty { break }
                }
                result.formUnion(positions)
            }
            return result
        }

        mutating func ends(of element: Element, from start: Int) -> Set<Int> {
            switch element {
            case .literal(let scalars):
                guard start + scalars.count <= text.count, Array(text[start..<start + scalars.count]) == scalars else { return [] }
                return [start + scalars.count]
            case .characters(let negated, let ranges):
                guard start < text.count else { return [] }
                let inside = ranges.contains { $0.contains(text[start]) }
                return inside != negated ? [start + 1] : []
            case .rule(let name):
                if let known = memo[name]?[start] { return known }
                memo[name, default: [:]][start] = [] // guards against left recursion
                let result = ends(of: rules[name] ?? [], from: start)
                memo[name, default: [:]][start] = result
                return result
            case .group(let alternatives):
                return ends(of: alternatives, from: start)
            case .repeated(let inner, let low, let high):
                var result: Set<Int> = low == 0 ? [start] : []
                var frontier: Set<Int> = [start]
                var seen: Set<Int> = [start]
                var count = 0
                while !frontier.isEmpty, high.map({ count < $0 }) ?? true {
                    var next: Set<Int> = []
                    for p in frontier { next.formUnion(ends(of: inner, from: p)) }
                    count += 1
                    if count >= low { result.formUnion(next) }
                    if count >= low { next.subtract(seen) }
                    seen.formUnion(next)
                    frontier = next
                }
                return result
            }
        }
    }

    // MARK: Sampling

    /// A random string that `root` matches; past `depth` levels of rules it takes the shortest way out.
    func sample(root: String = "root", depth: Int = 12, using generator: inout some RandomNumberGenerator) -> String {
        var out: [UInt32] = []
        let heights = minimumHeights()
        emit(.rule(root), level: 0, limit: depth, heights: heights, into: &out, using: &generator)
        var text = ""
        for v in out { if let s = Unicode.Scalar(v) { text.unicodeScalars.append(s) } }
        return text
    }

    /// How many nested rule expansions each rule needs at least to finish.
    private func minimumHeights() -> [String: Int] {
        var heights: [String: Int] = [:]
        var changed = true
        while changed {
            changed = false
            for (name, body) in rules {
                if let h = height(of: body, heights), h < heights[name] ?? Int.max {
                    heights[name] = h
                    changed = true
                }
            }
        }
        return heights
    }

    private func height(of alternatives: [[Element]], _ heights: [String: Int]) -> Int? {
        alternatives.compactMap { sequence -> Int? in
            var top = 0
            for element in sequence {
                guard let h = height(of: element, heights) else { return nil }
                top = max(top, h)
            }
            return top
        }.min()
    }

    private func height(of element: Element, _ heights: [String: Int]) -> Int? {
        switch element {
        case .literal, .characters: 0
        case .rule(let name): heights[name].map { $0 + 1 }
        case .group(let alternatives): height(of: alternatives, heights)
        case .repeated(let inner, let low, _): low == 0 ? 0 : height(of: inner, heights)
        }
    }

    private static let pool: [UInt32] = Array(0x20...0x7E) + [0x0A, 0x09, 0xE9, 0x4E2D, 0x1F600]

    private func emit(_ element: Element, level: Int, limit: Int, heights: [String: Int], into out: inout [UInt32],
                      using generator: inout some RandomNumberGenerator) {
        let deep = level >= limit
        switch element {
        case .literal(let scalars): out += scalars
        case .characters(let negated, let ranges):
            if negated {
                let allowed = GBNF.pool.filter { v in !ranges.contains { $0.contains(v) } }
                out.append(allowed.randomElement(using: &generator) ?? 0x61)
            } else if let range = ranges.randomElement(using: &generator) {
                var v = UInt32.random(in: range, using: &generator)
                if Unicode.Scalar(v) == nil { v = range.lowerBound }
                out.append(v)
            }
        case .rule(let name):
            emitChoice(rules[name] ?? [], level: level + 1, limit: limit, heights: heights, into: &out, using: &generator)
        case .group(let alternatives):
            emitChoice(alternatives, level: level, limit: limit, heights: heights, into: &out, using: &generator)
        case .repeated(let inner, let low, let high):
            let top = deep ? low : min(high ?? low + 3, low + 3)
            let count = Int.random(in: low...max(low, top), using: &generator)
            for _ in 0..<count { emit(inner, level: level, limit: limit, heights: heights, into: &out, using: &generator) }
        }
    }

    private func emitChoice(_ alternatives: [[Element]], level: Int, limit: Int, heights: [String: Int],
                            into out: inout [UInt32], using generator: inout some RandomNumberGenerator) {
        let chosen: [Element]
        if level >= limit {
            chosen = alternatives.min { (height(of: [$0], heights) ?? Int.max) < (height(of: [$1], heights) ?? Int.max) } ?? []
        } else {
            chosen = alternatives.randomElement(using: &generator) ?? []
        }
        for element in chosen { emit(element, level: level, limit: limit, heights: heights, into: &out, using: &generator) }
    }
}

/// A seeded random number generator (SplitMix64), so failing samples can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension GBNF: CustomStringConvertible {
    var description: String { "GBNF(\(rules.count) rules)" }
}
