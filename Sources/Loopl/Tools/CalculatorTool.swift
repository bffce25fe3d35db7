import Foundation

/// Evaluates arithmetic: numbers, + - * / % (remainder) and ^ (or **), a percent sign after a
/// number (200*15% is 30), parentheses, and sqrt, abs, round, floor, ceil, min, max, pi and e.
/// A real parser: nothing is ever run as code.
package struct CalculatorTool: Tool {
    package static let name = "calculator"
    package var name: String { Self.name }
    package let description = "Evaluate an arithmetic expression. Write the question's numbers with symbols: plus +, minus -, times *, divided by /, squared ^2, X percent of Y as Y*X%. For example 17*23 or (45-17)/4."
    /// The expression is numbers and operators only, so a grammar keeps a small model from
    /// writing words or placeholders (`{2} + 2`) where the numbers go.
    package let parameters: JSONValue = [
        "type": "object",
        "properties": ["expression": [
            "type": "string", "description": "The expression to evaluate, with numbers and + - * / % ^ ( ).",
            "pattern": "^[-(0-9][0-9. ]{0,24}[-+*/%^][-+*/%^()0-9. ]{0,149}[0-9)%]$", "minLength": 3, "maxLength": 200,
        ]],
        "required": ["expression"],
    ]

    package init() {}

    package func call(_ arguments: JSONObject) async throws -> String {
        guard let expression = arguments["expression"]?.stringValue else {
            throw LooplError(.invalidRequest, "Give the expression as a string in 'expression'.")
        }
        return try Self.format(Self.evaluate(expression))
    }

    /// The value of `expression`; throws `invalidRequest` with what is wrong and where.
    package static func evaluate(_ expression: String) throws -> Double {
        guard expression.count <= 1000 else { throw LooplError(.invalidRequest, "The expression is longer than 1000 characters.") }
        var parser = Arithmetic(Array(expression.unicodeScalars))
        let value = try parser.parse()
        guard value.isFinite else { throw LooplError(.invalidRequest, "The result is not a finite number.") }
        return value
    }

    /// A whole number prints without a fraction; others with up to 12 significant digits.
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(format: "%.12g", value)
    }
}

/// A recursive-descent parser for arithmetic.
private struct Arithmetic {
    let text: [Unicode.Scalar]
    var index = 0
    var depth = 0

    init(_ text: [Unicode.Scalar]) { self.text = text }

    func fail(_ reason: String) -> LooplError {
        LooplError(.invalidRequest, "Cannot evaluate the expression: \(reason) at character \(index + 1).")
    }

    mutating func parse() throws -> Double {
        let value = try sum()
        skipSpaces()
        guard index == text.count else { throw fail("unexpected '\(text[index])'") }
        return value
    }

    mutating func skipSpaces() { while index < text.count, text[index] == " " || text[index] == "\t" { index += 1 } }

    mutating func take(_ symbol: String) -> Bool {
        skipSpaces()
        let scalars = Array(symbol.unicodeScalars)
        guard index + scalars.count <= text.count, Array(text[index..<index + scalars.count]) == scalars else { return false }
        index += scalars.count
        return true
    }

    mutating func sum() throws -> Double {
        var value = try product()
        while true {
            if take("+") { value += try product() } else if take("-") { value -= try product() } else { return value }
        }
    }

    mutating func product() throws -> Double {
        var value = try unary()
        while true {
            if take("*") || take("×") { value *= try unary() }
            else if take("/") || take("÷") {
                let divisor = try unary()
                guard divisor != 0 else { throw fail("division by zero") }
                value /= divisor
            } else if take("%") {
                let divisor = try unary()
                guard divisor != 0 else { throw fail("modulo by zero") }
                value = value.truncatingRemainder(dividingBy: divisor)
            } else { return value }
        }
    }

    /// A sign binds looser than a power: -3^2 is -9, as in Python.
    mutating func unary() throws -> Double {
        if take("-") { return -(try unary()) }
        if take("+") { return try unary() }
        return try power()
    }

    mutating func power() throws -> Double {
        var base = try primary()
        if takePercent() { base /= 100 }
        if take("^") || take("**") { return pow(base, try unary()) }
        return base
    }

    /// A `%` that ends a number, as in 15% or 200*15%: not followed by a number or `(`, which
    /// would make it the remainder operator.
    mutating func takePercent() -> Bool {
        skipSpaces()
        guard index < text.count, text[index] == "%" else { return false }
        var next = index + 1
        while next < text.count, text[next] == " " || text[next] == "\t" { next += 1 }
        guard next == text.count || "+-*/^%),×÷".unicodeScalars.contains(text[next]) else { return false }
        index += 1
        return true
    }

    mutating func primary() throws -> Double {
        skipSpaces()
        guard index < text.count else { throw fail("the expression ends too early") }
        depth += 1
        defer { depth -= 1 }
        guard depth < 200 else { throw fail("too deeply nested") }
        if take("(") {
            let value = try sum()
            guard take(")") else { throw fail("a ')' is missing") }
            return value
        }
        let start = index
        if text[index].properties.isAlphabetic {
            while index < text.count, text[index].properties.isAlphabetic || ("0"..."9").contains(text[index]) { index += 1 }
            let word = String(String.UnicodeScalarView(text[start..<index])).lowercased()
            switch word {
            case "pi": return Double.pi
            case "e": return 2.718281828459045
            default: return try function(word)
            }
        }
        while index < text.count, ("0"..."9").contains(text[index]) || text[index] == "." || text[index] == "_" { index += 1 }
        if index < text.count, text[index] == "e" || text[index] == "E",
           index + 1 < text.count, ("0"..."9").contains(text[index + 1]) || text[index + 1] == "-" || text[index + 1] == "+" {
            index += 2
            while index < text.count, ("0"..."9").contains(text[index]) { index += 1 }
        }
        let literal = String(String.UnicodeScalarView(text[start..<index])).replacingUnderscores()
        guard !literal.isEmpty, let value = Double(literal) else {
            index = start
            throw fail(literal.isEmpty ? "expected a number" : "'\(literal)' is not a number")
        }
        return value
    }

    mutating func function(_ name: String) throws -> Double {
        guard take("(") else { throw fail("unknown name '\(name)'") }
        var arguments: [Double] = [try sum()]
        while take(",") { arguments.append(try sum()) }
        guard take(")") else { throw fail("a ')' is missing") }
        func one() throws -> Double {
            guard arguments.count == 1 else { throw fail("\(name) takes one argument") }
            return arguments[0]
        }
        switch name {
        case "sqrt":
            let x = try one()
            guard x >= 0 else { throw fail("square root of a negative number") }
            return x.squareRoot()
        case "abs": return abs(try one())
        case "round": return (try one()).rounded()
        case "floor": return (try one()).rounded(.down)
        case "ceil": return (try one()).rounded(.up)
        case "min": return arguments.min() ?? 0
        case "max": return arguments.max() ?? 0
        default: throw fail("unknown function '\(name)'")
        }
    }
}

private extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
