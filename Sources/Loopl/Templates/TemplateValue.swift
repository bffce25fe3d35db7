import Foundation

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

    /// Python's `repr()`.
    var repr: String {
        switch self {
        case .undefined: "Undefined"
        case .none: "None"
        case .bool(let b): b ? "True" : "False"
        case .int(let i): String(i)
        case .double(let d): TemplateValue.pythonFloat(d)
        case .string(let s): TemplateValue.pythonRepr(s)
        case .markup(let s): "Markup(" + TemplateValue.pythonRepr(s) + ")"
        case .list(let l): "[" + l.map(\.repr).joined(separator: ", ") + "]"
        case .tuple(let l): "(" + l.map(\.repr).joined(separator: ", ") + (l.count == 1 ? ",)" : ")")
        case .dict(let d):
            "{" + d.map { $0.key.value.repr + ": " + $0.value.repr }.joined(separator: ", ") + "}"
        case .namespace(let n):
            "<Namespace " + n.attributes.map { $0.key.value.repr + ": " + $0.value.repr }
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

    /// The value as JSON, for `tojson`.
    func json() throws -> JSONValue {
        switch plain {
        case .none: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .list(let l): return .array(try l.map { try $0.json() })
        case .dict(let d):
            var object = JSONObject()
            for (key, value) in d { object[key.text] = try value.json() }
            return .object(object)
        default: throw TemplateFailure("Object of type \(typeName) is not JSON serializable")
        }
    }
}

/// Python's `==`: numbers compare by value across int, float and bool.
func templateEquals(_ a: TemplateValue, _ b: TemplateValue) -> Bool {
    if case .string(let x) = a, case .string(let y) = b {
        return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
    }
    switch (a.plain, b.plain) {
    case (.undefined, .undefined), (.none, .none): return true
    case (.string(let x), .string(let y)):
        // Python compares code points; Swift's == would equate canonically equivalent strings.
        return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
    case (.list(let x), .list(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { templateEquals($0, $1) }
    case (.dict(let x), .dict(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { templateEquals(value, $0) } ?? false }
    case (.namespace(let x), .namespace(let y)): return x === y
    case (.function(let x), .function(let y)): return x === y
    case (.loop(let x), .loop(let y)): return x === y
    default:
        if let x = a.exactNumber, let y = b.exactNumber {
            switch (x, y) {
            case (.int(let i), .int(let j)): return i == j
            default: return x.asDouble == y.asDouble
            }
        }
        return false
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

/// Python's ordering for `<`, `sort` and friends; nil when Python would raise a TypeError.
func templateCompare(_ a: TemplateValue, _ b: TemplateValue) -> Int? {
    if let x = a.exactNumber, let y = b.exactNumber {
        if case .int(let i) = x, case .int(let j) = y { return i < j ? -1 : (i == j ? 0 : 1) }
        let (p, q) = (x.asDouble, y.asDouble)
        return p < q ? -1 : (p == q ? 0 : 1)
    }
    switch (a.plain, b.plain) {
    case (.string(let x), .string(let y)):
        var i = x.unicodeScalars.makeIterator(), j = y.unicodeScalars.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?): if p != q { return p.value < q.value ? -1 : 1 }
            }
        }
    case (.list(let x), .list(let y)):
        for (p, q) in zip(x, y) where !templateEquals(p, q) { return templateCompare(p, q) }
        return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
    default: return nil
    }
}

/// A dict that keeps insertion order, as Python's does.
/// A dict key: Python allows more, templates use strings and integers.
enum TemplateKey: Hashable {
    case string(String)
    case int(Int)

    /// The key for a value, nil when the value cannot be one.
    init?(_ value: TemplateValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .int(let i): self = .int(i)
        case .bool(let b): self = .int(b ? 1 : 0)
        case .double(let d) where d == d.rounded() && abs(d) < 9e18: self = .int(Int(d))
        default: return nil
        }
    }

    var value: TemplateValue {
        switch self {
        case .string(let s): .string(s)
        case .int(let i): .int(i)
        }
    }

    /// The key as JSON writes it.
    var text: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        }
    }
}

/// A dict that keeps insertion order, as Python's does. Small dicts (most of a chat) are searched
/// linearly; a hash index appears past `indexThreshold` keys.
struct TemplateDictionary: Sequence {
    struct Entry {
        var key: TemplateKey
        var value: TemplateValue
    }

    private(set) var entries: [Entry] = []
    private var index: [TemplateKey: Int]?
    private static let indexThreshold = 12

    init() {}

    init(entries: [Entry]) {
        self.entries = entries
        if entries.count > Self.indexThreshold { rebuildIndex() }
    }

    private mutating func rebuildIndex() {
        var built: [TemplateKey: Int] = [:]
        for (i, entry) in entries.enumerated() { built[entry.key] = i }
        index = built
    }

    private func position(_ key: TemplateKey) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    var keys: [TemplateKey] { entries.map(\.key) }
    var values: [TemplateValue] { entries.map(\.value) }

    subscript(key: String) -> TemplateValue? {
        get { self[.string(key)] }
        set { self[.string(key)] = newValue }
    }

    subscript(key: TemplateKey) -> TemplateValue? {
        get { position(key).map { entries[$0].value } }
        set {
            if let newValue {
                if let i = position(key) {
                    entries[i].value = newValue
                } else {
                    entries.append(Entry(key: key, value: newValue))
                    index?[key] = entries.count - 1
                    if index == nil && entries.count > Self.indexThreshold { rebuildIndex() }
                }
            } else if let i = position(key) {
                entries.remove(at: i)
                if index != nil { rebuildIndex() }
            }
        }
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    func makeIterator() -> some IteratorProtocol<(key: TemplateKey, value: TemplateValue)> {
        entries.lazy.map { (key: $0.key, value: $0.value) }.makeIterator()
    }
}

/// The variables of one scope: few, so searched linearly.
struct TemplateScope {
    private struct Entry {
        let name: String
        var value: TemplateValue
    }

    private var entries: [Entry] = []

    init() {}

    init(_ pairs: some Sequence<(String, TemplateValue)>) {
        for (name, value) in pairs { self[name] = value }
    }

    subscript(name: String) -> TemplateValue? {
        get {
            for entry in entries where entry.name == name { return entry.value }
            return nil
        }
        set {
            if let i = entries.firstIndex(where: { $0.name == name }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append(Entry(name: name, value: newValue))
            }
        }
    }
}

/// The mutable object `namespace()` makes, whose attributes `{% set ns.x = ... %}` assigns.
final class TemplateNamespace {
    var attributes = TemplateDictionary()
}

/// A callable: a global, a macro or a bound method.
final class TemplateFunction {
    let name: String
    let body: (TemplateArguments) throws -> TemplateValue

    init(_ name: String, _ body: @escaping (TemplateArguments) throws -> TemplateValue) {
        self.name = name
        self.body = body
    }
}

/// Positional and keyword arguments of a call.
struct TemplateArguments {
    var positional: [TemplateValue] = []
    var keywords: [(name: String, value: TemplateValue)] = []

    /// The argument at `index` or named `name`, else nil.
    func value(_ index: Int, _ name: String) -> TemplateValue? {
        if index < positional.count { return positional[index] }
        return keywords.first { $0.name == name }?.value
    }
}

/// The `loop` variable inside a `for` block.
final class TemplateLoop {
    let items: [TemplateValue]
    var index0 = 0
    let depth0: Int
    let recurse: TemplateFunction?

    init(items: [TemplateValue], depth0: Int, recurse: TemplateFunction?) {
        self.items = items
        self.depth0 = depth0
        self.recurse = recurse
    }

    func attribute(_ name: String) -> TemplateValue {
        let count = items.count
        switch name {
        case "index": return .int(index0 + 1)
        case "index0": return .int(index0)
        case "revindex": return .int(count - index0)
        case "revindex0": return .int(count - index0 - 1)
        case "first": return .bool(index0 == 0)
        case "last": return .bool(index0 == count - 1)
        case "length": return .int(count)
        case "depth": return .int(depth0 + 1)
        case "depth0": return .int(depth0)
        case "previtem": return index0 > 0 ? items[index0 - 1] : .undefined("there is no previous item")
        case "nextitem": return index0 + 1 < count ? items[index0 + 1] : .undefined("there is no next item")
        case "cycle":
            return .function(TemplateFunction("loop.cycle") { [index0] arguments in
                guard !arguments.positional.isEmpty else { throw TemplateFailure("no items for cycling given") }
                return arguments.positional[index0 % arguments.positional.count]
            })
        case "changed":
            return .function(TemplateFunction("loop.changed") { _ in .bool(true) })
        default: return .undefined("'LoopContext object' has no attribute '\(name)'")
        }
    }
}

/// An error while rendering, before the renderer adds the template line.
struct TemplateFailure: Error {
    let message: String
    /// True for `raise_exception`, whose message reaches the user unchanged.
    var raised = false
    /// The template line, once known.
    var line: Int?
    init(_ message: String, raised: Bool = false) {
        self.message = message
        self.raised = raised
    }
}
