import Foundation

/// Python's arithmetic and comparison operators on template values.
enum TemplateOperators {
    static func binary(_ op: String, _ a: TemplateValue, _ b: TemplateValue) throws -> TemplateValue {
        if op == "~" { return .string(a.text + b.text) }
        if op == "%", case .string(let format) = a.plain {
            // printf-style: a tuple gives the values; a list, dict or undefined is one value that may go unused.
            switch b {
            case .tuple(let values): return .string(try TemplateFormat.printf(format, values, allowUnused: false))
            case .list, .dict, .undefined: return .string(try TemplateFormat.printf(format, [b], allowUnused: true))
            default: return .string(try TemplateFormat.printf(format, [b], allowUnused: false))
            }
        }
        if case .tuple(let x) = a {
            switch (op, b) {
            case ("+", .tuple(let y)): return .tuple(x + y)
            case ("+", _): throw TemplateFailure("can only concatenate tuple (not \"\(b.typeName)\") to tuple")
            case ("*", _):
                if case .list(let repeated) = try binary(op, .list(x), b) { return .tuple(repeated) }
            default: break
            }
        }
        if op == "*", case .tuple(let y) = b, case .list(let repeated) = try binary(op, a, .list(y)) { return .tuple(repeated) }
        if op == "+", case .list = a, case .tuple = b {
            throw TemplateFailure("can only concatenate list (not \"tuple\") to list")
        }
        if case .undefined(let why) = a { throw TemplateFailure(why) }
        if case .undefined(let why) = b { throw TemplateFailure(why) }
        if let x = a.exactNumber, let y = b.exactNumber { return try arithmetic(op, x, y) }
        if op == "+" {
            switch (a, b) {
            case (.markup(let x), .markup(let y)): return .markup(x + y)
            case (.markup(let x), .string(let y)): return .markup(x + TemplateFilters.escapeHTML(y))
            case (.string(let x), .markup(let y)): return .markup(TemplateFilters.escapeHTML(x) + y)
            default: break
            }
        }
        let (a, b) = (a.plain, b.plain)
        switch (op, a, b) {
        case ("+", .string(let x), .string(let y)): return .string(x + y)
        case ("+", .list(let x), .list(let y)): return .list(x + y)
        case ("+", .string, _), ("+", .list, _):
            throw TemplateFailure("can only concatenate \(a.typeName) (not \"\(b.typeName)\") to \(a.typeName)")
        case ("*", .string(let s), .bool(let flag)), ("*", .bool(let flag), .string(let s)):
            return .string(flag ? s : "")
        case ("*", .list(let l), .bool(let flag)), ("*", .bool(let flag), .list(let l)):
            return .list(flag ? l : [])
        case ("*", .string(let s), .int(let n)), ("*", .int(let n), .string(let s)):
            let (size, overflow) = s.utf8.count.multipliedReportingOverflow(by: max(n, 0))
            guard !overflow, size <= 16 << 20 else { throw TemplateFailure("string repetition too large") }
            return .string(n > 0 ? String(repeating: s, count: n) : "")
        case ("*", .list(let l), .int(let n)), ("*", .int(let n), .list(let l)):
            let (size, overflow) = l.count.multipliedReportingOverflow(by: max(n, 0))
            guard !overflow, size <= 1 << 20 else { throw TemplateFailure("list repetition too large") }
            return .list(n > 0 ? Array([[TemplateValue]](repeating: l, count: n).joined()) : [])
        default:
            throw TemplateFailure("unsupported operand type(s) for \(op): '\(a.typeName)' and '\(b.typeName)'")
        }
    }

    /// Arithmetic on numbers; ints stay ints where Python keeps them.
    private static func arithmetic(_ op: String, _ a: TemplateValue, _ b: TemplateValue) throws -> TemplateValue {
        if case .int(let x) = a, case .int(let y) = b {
            switch op {
            case "+", "-", "*":
                let (value, overflow) = op == "+" ? x.addingReportingOverflow(y)
                    : op == "-" ? x.subtractingReportingOverflow(y) : x.multipliedReportingOverflow(by: y)
                if overflow { throw TemplateFailure("integer overflow in \(x) \(op) \(y)") }
                return .int(value)
            case "/":
                guard y != 0 else { throw TemplateFailure("division by zero") }
                return .double(Double(x) / Double(y))
            case "//", "%":
                guard y != 0 else { throw TemplateFailure("integer division or modulo by zero") }
                if x == .min && y == -1 { throw TemplateFailure("integer overflow") }
                var quotient = x / y, remainder = x % y
                if remainder != 0 && (remainder < 0) != (y < 0) { quotient -= 1; remainder += y }
                return .int(op == "//" ? quotient : remainder)
            case "**":
                if y >= 0 {
                    var result = 1
                    for _ in 0..<min(y, 64) {
                        let (value, overflow) = result.multipliedReportingOverflow(by: x)
                        if overflow { throw TemplateFailure("integer overflow in \(x) ** \(y)") }
                        result = value
                    }
                    if y > 64 && x.magnitude > 1 { throw TemplateFailure("integer overflow in \(x) ** \(y)") }
                    return .int(y > 64 && x == -1 ? (y % 2 == 0 ? 1 : -1) : result)
                }
                guard x != 0 else { throw TemplateFailure("0.0 cannot be raised to a negative power") }
                return .double(pow(Double(x), Double(y)))
            default: break
            }
        }
        let x = a.asDouble, y = b.asDouble
        switch op {
        case "+": return .double(x + y)
        case "-": return .double(x - y)
        case "*": return .double(x * y)
        case "/":
            guard y != 0 else { throw TemplateFailure("float division by zero") }
            return .double(x / y)
        case "//":
            guard y != 0 else { throw TemplateFailure("float floor division by zero") }
            return .double((x / y).rounded(.down))
        case "%":
            guard y != 0 else { throw TemplateFailure("float modulo") }
            let r = x.truncatingRemainder(dividingBy: y)
            if r == 0 { return .double(y < 0 ? -0.0 : 0.0) }
            return .double((r < 0) != (y < 0) ? r + y : r)
        case "**":
            if x == 0 && y < 0 { throw TemplateFailure("0.0 cannot be raised to a negative power") }
            let result = pow(x, y)
            if result.isInfinite && x.isFinite && y.isFinite { throw TemplateFailure("(34, 'Numerical result out of range')") }
            if result.isNaN && !x.isNaN && !y.isNaN { throw TemplateFailure("complex result from a negative number to a fractional power") }
            return .double(result)
        default: throw TemplateFailure("unknown operator \(op)")
        }
    }

    static func compare(_ op: String, _ a: TemplateValue, _ b: TemplateValue) throws -> Bool {
        switch op {
        case "==": return templateEquals(a, b)
        case "!=": return !templateEquals(a, b)
        case "in": return try contains(b, a)
        case "notin": return try !contains(b, a)
        default:
            if case .undefined(let why) = a { throw TemplateFailure(why) }
            if case .undefined(let why) = b { throw TemplateFailure(why) }
            switch (a, b) {
            case (.tuple, .list), (.list, .tuple):
                throw TemplateFailure("'\(op)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'")
            default: break
            }
            guard let order = templateCompare(a, b) else {
                throw TemplateFailure("'\(op)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'")
            }
            switch op {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        }
    }

    /// Python's `needle in container`.
    static func contains(_ container: TemplateValue, _ needle: TemplateValue) throws -> Bool {
        switch container.plain {
        case .string(let s):
            guard case .string(let n) = needle.plain else {
                throw TemplateFailure("'in <string>' requires string as left operand, not \(needle.typeName)")
            }
            return TemplateText.find(n, in: s) != nil
        case .list(let l): return l.contains { templateEquals($0, needle) }
        case .dict(let d):
            switch needle {
            case .list, .dict: throw TemplateFailure("unhashable type: '\(needle.typeName)'")
            default: return TemplateKey(needle).map { d[$0] != nil } ?? false
            }
        case .undefined: return false
        case .namespace(let n):
            if case .string(let key) = needle { return n.attributes[key] != nil }
            return false
        default: throw TemplateFailure("argument of type '\(container.typeName)' is not iterable")
        }
    }
}
