import Foundation
import LooplJSON

/// A value while a template renders: Python's data model as Jinja shows it to templates.
enum TemplateValue {
    /// A missing value; the text says why, for the error raised when it is used.
    case undefined(String)
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// A string marked safe (`|safe`): `+` escapes the plain string on its other side, as Markup does.
    case markup(String)
    case list([TemplateValue])
    /// A Python tuple: a list that prints with parentheses (dict items, `(a, b)`, `set x = a, b`).
    case tuple([TemplateValue])
    /// What `map`, `select` and friends return: iterable once, without a length, not JSON.
    case generator([TemplateValue])
    case dict(TemplateDictionary)
    case namespace(TemplateNamespace)
    case function(TemplateFunction)
    case loop(TemplateLoop)

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .none
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .list(a.map(TemplateValue.init))
        case .object(let o):
            self = .dict(TemplateDictionary(entries: o.map { .init(key: .string($0.key), value: TemplateValue($0.value)) }))
        }
    }

    var isUndefined: Bool { if case .undefined = self { true } else { false } }

    /// The value with a Markup string turned into a plain one.
    var plain: TemplateValue {
        switch self {
        case .markup(let s): .string(s)
        case .tuple(let l): .list(l)
        default: self
        }
    }

    /// Python's name of the value's type, as error messages show it.
    var typeName: String {
        switch self {
        case .undefined: "Undefined"
        case .none: "NoneType"
        case .bool: "bool"
        case .int: "int"
        case .double: "float"
        case .string: "str"
        case .markup: "Markup"
        case .list: "list"
        case .tuple: "tuple"
        case .generator: "generator"
        case .dict: "dict"
        case .namespace: "Namespace"
        case .function: "function"
        case .loop: "LoopContext"
        }
    }

    /// Python's truth value.
    var isTruthy: Bool {
        switch self {
        case .undefined, .none: false
        case .bool(let b): b
        case .int(let i): i != 0
        case .double(let d): d != 0
        case .string(let s), .markup(let s): !s.isEmpty
        case .list(let l), .tuple(let l): !l.isEmpty
        case .dict(let d): !d.isEmpty
        case .namespace, .function, .loop, .generator: true
        }
    }

    /// Python's `str()`, as `{{ value }}` prints it.
    var text: String {
        switch self {
        case .undefined: ""
        case .string(let s), .markup(let s): s
        default: repr
        }
    }

    /// Containers nested deeper than this print as `[...]` and fail in `tojson`, so that a value a
    /// template built in a loop cannot exhaust the stack.
    static let maxDepth = 200

    /// How deeply containers nest in this value, counting no further than `limit + 1`.
    func nestingDepth(limit: Int = TemplateValue.maxDepth) -> Int {
        guard limit >= 0 else { return 1 }
        let children: [TemplateValue] = switch self {
        case .list(let l), .tuple(let l), .generator(let l): l
        case .dict(let d): d.values
        case .namespace(let n): n.attributes.values
        default: []
        }
        guard !children.isEmpty else { return 0 }
        var deepest = 0
        for child in children {
            deepest = max(deepest, child.nestingDepth(limit: limit - 1))
            if deepest >= limit { break }
        }
        return deepest + 1
    }

    /// Python's `repr()`.
    var repr: String { repr(depth: 0) }

    func repr(depth: Int) -> String {
        if depth > Self.maxDepth {
            switch self {
            case .list, .tuple, .dict, .namespace, .generator: return "[...]"
            default: break
            }
        }
        let next = depth + 1
        return switch self {
        case .undefined: "Undefined"
        case .none: "None"
        case .bool(let b): b ? "True" : "False"
        case .int(let i): String(i)
        case .double(let d): TemplateValue.pythonFloat(d)
        case .string(let s): TemplateValue.pythonRepr(s)
        case .markup(let s): "Markup(" + TemplateValue.pythonRepr(s) + ")"
        case .list(let l): "[" + l.map { $0.repr(depth: next) }.joined(separator: ", ") + "]"
        case .tuple(let l): "(" + l.map { $0.repr(depth: next) }.joined(separator: ", ") + (l.count == 1 ? ",)" : ")")
        case .dict(let d):
            "{" + d.map { $0.key.value.repr + ": " + $0.value.repr(depth: next) }.joined(separator: ", ") + "}"
        case .namespace(let n):
            "<Namespace " + n.attributes.map { $0.key.value.repr + ": " + $0.value.repr(depth: next) }
                .joined(separator: ", ") + ">"
        case .function(let f): "<function \(f.name)>"
        case .generator: "<generator object>"
        case .loop: "<LoopContext>"
        }
    }

    static func pythonFloat(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return JSONValue.formatDouble(d)
    }

    /// A string as Python's `repr` quotes it.
    static func pythonRepr(_ s: String) -> String {
        let quote: Character = s.contains("'") && !s.contains("\"") ? "\"" : "'"
        var out = String(quote)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "'" where quote == "'": out += "\\'"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append(quote)
        return out
    }

    /// The elements a `for` loop visits: a list's items, a string's characters, a dict's keys.
    func iterated() throws -> [TemplateValue] {
        switch plain {
        case .undefined: return []
        case .list(let l), .generator(let l): return l
        case .string(let s): return s.unicodeScalars.map { .string(String($0)) }
        case .dict(let d): return d.keys.map(\.value)
        case .namespace, .none, .bool, .int, .double, .function, .loop, .markup, .tuple:
            throw TemplateFailure("'\(typeName)' object is not iterable")
        }
    }

    /// Python's `len()`.
    func length() throws -> Int {
        switch plain {
        case .undefined: return 0
        case .string(let s): return s.unicodeScalars.count
        case .list(let l): return l.count
        case .dict(let d): return d.count
        default: throw TemplateFailure("object of type '\(typeName)' has no len()")
        }
    }

}

extension TemplateValue {
    /// Bool, int or float as a number (Python's bool is an int).
    var exactNumber: TemplateValue? {
        switch self {
        case .bool(let b): .int(b ? 1 : 0)
        case .int, .double: self
        default: nil
        }
    }

    var asDouble: Double {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        case .bool(let b): b ? 1 : 0
        default: .nan
        }
    }
}
