/// The tests of `value is name(arguments)`.
enum TemplatePredicates {
    static func apply(_ name: String, to value: TemplateValue, _ arguments: TemplateArguments,
                      renderer: TemplateRenderer) throws -> Bool {
        let value = value.plain
        func other() throws -> TemplateValue {
            guard let first = arguments.value(0, name == "divisibleby" ? "num" : "other") else {
                throw TemplateFailure("the test '\(name)' needs an argument")
            }
            return first
        }
        switch name {
        case "defined": return !value.isUndefined
        case "undefined": return value.isUndefined
        case "none": if case .none = value { return true } else { return false }
        case "string": if case .string = value { return true } else { return false }
        case "mapping": if case .dict = value { return true } else { return false }
        case "boolean": if case .bool = value { return true } else { return false }
        case "true": if case .bool(true) = value { return true } else { return false }
        case "false": if case .bool(false) = value { return true } else { return false }
        case "integer": if case .int = value { return true } else { return false }
        case "float": if case .double = value { return true } else { return false }
        case "number": return value.exactNumber != nil
        case "iterable":
            switch value {
            case .undefined, .string, .list, .dict, .generator: return true
            default: return false
            }
        case "sequence":
            switch value {
            case .undefined, .string, .list, .dict: return true
            default: return false
            }
        case "callable":
            switch value {
            case .function, .undefined: return true
            case .loop(let loop): return loop.recurse != nil
            default: return false
            }
        case "eq", "equalto", "==": return templateEquals(value, try other())
        case "ne", "!=": return !templateEquals(value, try other())
        case "lt", "lessthan", "<": return try TemplateOperators.compare("<", value, try other())
        case "le", "<=": return try TemplateOperators.compare("<=", value, try other())
        case "gt", "greaterthan", ">": return try TemplateOperators.compare(">", value, try other())
        case "ge", ">=": return try TemplateOperators.compare(">=", value, try other())
        case "in": return try TemplateOperators.contains(try other(), value)
        case "sameas":
            let o = try other()
            switch (value, o) {
            case (.none, .none): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.namespace(let a), .namespace(let b)): return a === b
            default: return false
            }
        case "odd", "even":
            let remainder = try TemplateOperators.binary("%", value, .int(2))
            return templateEquals(remainder, .int(name == "odd" ? 1 : 0))
        case "divisibleby":
            let divisor = try other()
            guard case .int(let i) = value.exactNumber ?? .none, case .int(let d) = divisor.exactNumber ?? .none else {
                return try TemplateOperators.binary("%", value, divisor).asDouble == 0
            }
            guard d != 0 else { throw TemplateFailure("integer division or modulo by zero") }
            return i % d == 0
        case "lower", "upper":
            // Python's islower/isupper: at least one cased letter, and all cased letters in that case.
            var cased = false
            for scalar in value.text.unicodeScalars where scalar.properties.isCased {
                cased = true
                if name == "lower" ? scalar.properties.isUppercase : scalar.properties.isLowercase { return false }
            }
            return cased
        case "escaped": return false
        case "filter", "test": return false
        default: throw TemplateFailure("No test named '\(name)'")
        }
    }
}
