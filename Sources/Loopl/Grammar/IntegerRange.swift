/// GBNF for the decimal integers between an optional minimum and an optional maximum.
///
/// Numbers are written as JSON writes them: no leading zeros, no plus sign, `-` only before a
/// non-zero number. Unbounded sides stop at 16 digits, as the plain `integer` rule does.
enum IntegerRange {
    static let maxDigits = 16

    /// An expression for the integers in `minimum...maximum`; either side may be open.
    static func expression(minimum: Int?, maximum: Int?) -> String {
        var alternatives: [String] = []
        let minimum = minimum.map { Swift.max($0, -9_999_999_999_999_999) }
        let maximum = maximum.map { Swift.min($0, 9_999_999_999_999_999) }
        // Negative part: "-" followed by magnitudes.
        let negativeLow = maximum.map { $0 < 0 ? -$0 : 1 } ?? 1   // smallest magnitude
        let negativeHigh: Int? = minimum.map { $0 < 0 ? -$0 : 0 } ?? nil // largest magnitude, nil = open
        if minimum.map({ $0 < 0 }) ?? true, negativeHigh.map({ $0 >= negativeLow }) ?? true {
            alternatives.append(#""-" "# + GrammarBuilder.group(magnitudes(negativeLow, negativeHigh)))
        }
        // Non-negative part.
        let low = Swift.max(minimum ?? 0, 0)
        if maximum.map({ $0 >= low }) ?? true {
            alternatives.append(magnitudes(low, maximum))
        }
        if alternatives.isEmpty { return #""0" "1""# } // an empty range; unreachable after validation
        return alternatives.joined(separator: " | ")
    }

    /// An expression for the JSON numbers (without exponent) from `minimum` to `maximum`, whole-number
    /// bounds; either side may be open.
    static func number(minimum: Int?, maximum: Int?) -> String {
        let fraction = #"("." [0-9]{1,16})?"#
        let zeros = #"("." [0]{1,16})?"#
        var alternatives: [String] = []
        func span(_ low: Int, _ high: Int?) {
            // Magnitudes from `low` (any fraction) up to `high` (only `high` itself with a zero fraction).
            guard let high else {
                alternatives.append(GrammarBuilder.group(magnitudes(low, nil)) + " " + fraction)
                return
            }
            if high > low { alternatives.append(GrammarBuilder.group(magnitudes(low, high - 1)) + " " + fraction) }
            if high >= low { alternatives.append(GrammarBuilder.group(magnitudes(high, high)) + " " + zeros) }
        }
        let low = Swift.max(minimum ?? 0, 0)
        if maximum.map({ $0 >= low }) ?? true { span(low, maximum) }
        let positives = alternatives
        alternatives = []
        if minimum.map({ $0 < 0 }) ?? true {
            let smallest = maximum.map { $0 < 0 ? -$0 : 0 } ?? 0
            span(smallest, minimum.map { -$0 })
        }
        let negatives = alternatives.map { #""-" "# + $0 }
        return (positives + negatives).map { GrammarBuilder.group($0) }.joined(separator: " | ")
    }

    /// Non-negative integers from `low` to `high` (nil: up to 16 digits).
    static func magnitudes(_ low: Int, _ high: Int?) -> String {
        let lowDigits = String(low).count
        guard let high else {
            var parts = [sameLength(String(low), String(repeating: "9", count: lowDigits))]
            if lowDigits < maxDigits {
                parts.append("[1-9] " + digits(lowDigits, maxDigits - 1))
            }
            return parts.joined(separator: " | ")
        }
        var parts: [String] = []
        var from = low
        while String(from).count < String(high).count {
            let count = String(from).count
            parts.append(sameLength(String(from), String(repeating: "9", count: count)))
            from = Int("1" + String(repeating: "0", count: count)) ?? high
        }
        parts.append(sameLength(String(from), String(high)))
        return parts.joined(separator: " | ")
    }

    /// Integers written with as many digits as `low` and `high` have, from `low` to `high`.
    static func sameLength(_ low: String, _ high: String) -> String {
        let lowDigits = Array(low), highDigits = Array(high)
        guard let l = lowDigits.first, let h = highDigits.first else { return "" }
        if lowDigits.count == 1 { return digitClass(l, h) }
        let lowRest = String(lowDigits.dropFirst()), highRest = String(highDigits.dropFirst())
        let width = lowRest.count
        if l == h { return "[\(l)] " + GrammarBuilder.group(sameLength(lowRest, highRest)) }
        let zeros = String(repeating: "0", count: width), nines = String(repeating: "9", count: width)
        var parts: [String] = []
        var middleLow = l, middleHigh = h
        if lowRest != zeros {
            parts.append("[\(l)] " + GrammarBuilder.group(sameLength(lowRest, nines)))
            middleLow = next(l)
        }
        if highRest != nines { middleHigh = previous(h) }
        if middleLow <= middleHigh {
            parts.append(digitClass(middleLow, middleHigh) + " " + digits(width, width))
        }
        if highRest != nines {
            parts.append("[\(h)] " + GrammarBuilder.group(sameLength(zeros, highRest)))
        }
        return parts.joined(separator: " | ")
    }

    static func digitClass(_ from: Character, _ to: Character) -> String {
        from == to ? "[\(from)]" : "[\(from)-\(to)]"
    }

    static func digits(_ min: Int, _ max: Int) -> String {
        if max == 0 { return "" }
        return min == max ? (min == 1 ? "[0-9]" : "[0-9]{\(min)}") : "[0-9]{\(min),\(max)}"
    }

    static func next(_ digit: Character) -> Character {
        Character(Unicode.Scalar((digit.asciiValue ?? 48) + 1))
    }

    static func previous(_ digit: Character) -> Character {
        Character(Unicode.Scalar((digit.asciiValue ?? 49) - 1))
    }
}
