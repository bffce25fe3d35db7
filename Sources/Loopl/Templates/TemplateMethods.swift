/// Attribute and item access, slicing, and the Python methods of str, dict and list that the
/// immutable sandbox allows.
enum TemplateMethods {
    static let stringMethods: Set<String> = [
        "split", "rsplit", "strip", "lstrip", "rstrip", "startswith", "endswith", "replace", "format", "upper",
        "lower", "title", "capitalize", "find", "rfind", "index", "count", "join", "isdigit", "isalpha", "isalnum",
        "isspace", "islower", "isupper", "splitlines", "center", "zfill", "removeprefix", "removesuffix", "swapcase",
        "casefold", "partition", "ljust", "rjust", "isnumeric", "isdecimal", "istitle", "expandtabs",
    ]
    static func isDictMethod(_ name: String) -> Bool {
        switch name {
        case "items", "keys", "values", "get", "copy": true
        default: false
        }
    }

    static func isUnsafeDictMethod(_ name: String) -> Bool {
        switch name {
        case "pop", "popitem", "setdefault", "update", "clear", "fromkeys": true
        default: false
        }
    }

    static func isListMethod(_ name: String) -> Bool { name == "index" || name == "count" || name == "copy" }

    static func isUnsafeListMethod(_ name: String) -> Bool {
        switch name {
        case "append", "pop", "extend", "insert", "remove", "reverse", "sort", "clear": true
        default: false
        }
    }

    private static func unsafe(_ name: String, _ value: TemplateValue) -> TemplateValue {
        .undefined("access to attribute '\(name)' of '\(value.typeName)' object is unsafe.")
    }

    /// `value.name`: Python attribute first, then item.
    static func attribute(of value: TemplateValue, _ name: String) throws -> TemplateValue {
        // The common case first: a dict member that is not a method name.
        if case .dict(let d) = value {
            if isDictMethod(name) { return boundMethod(value, name) }
            if let member = d[name], !isUnsafeDictMethod(name) { return member }
        }
        switch value.plain {
        case .undefined(let why): throw TemplateFailure(why)
        case .dict(let d):
            if isDictMethod(name) { return boundMethod(value, name) }
            if isUnsafeDictMethod(name) { return unsafe(name, value) }
            return d[name] ?? .undefined("'dict object' has no attribute '\(name)'")
        case .namespace(let n):
            return n.attributes[name] ?? .undefined("'Namespace object' has no attribute '\(name)'")
        case .loop(let loop): return loop.attribute(name)
        case .string:
            if stringMethods.contains(name) { return boundMethod(value, name) }
        case .list:
            if isListMethod(name) { return boundMethod(value, name) }
            if isUnsafeListMethod(name) { return unsafe(name, value) }
        case .none:
            return .undefined("'None' has no attribute '\(name)'")
        default: break
        }
        return .undefined("'\(value.typeName) object' has no attribute '\(name)'")
    }

    private static func boundMethod(_ receiver: TemplateValue, _ name: String) -> TemplateValue {
        .function(TemplateFunction(name) { arguments in
            try callMethod(receiver, name, arguments) ?? .undefined("no method '\(name)'")
        })
    }

    /// `value[key]`: item first, then attribute for a string key.
    static func item(of value: TemplateValue, _ key: TemplateValue) throws -> TemplateValue {
        switch (value, key) {
        case (.dict(let d), .string(let k)):
            if let found = d[k] { return found }
        case (.list(let l), .int(let i)):
            if i >= 0 && i < l.count { return l[i] }
            if i < 0 && i + l.count >= 0 { return l[i + l.count] }
        default: break
        }
        switch (value.plain, key.plain) {
        case (.undefined(let why), _): throw TemplateFailure(why)
        case (.dict(let d), _):
            if let k = TemplateKey(key), let found = d[k] { return found }
            if case .string(let k) = key { return try attribute(of: value, k) }
        case (.list(let l), _):
            if case .int(var i) = key.exactNumber ?? .none {
                if i < 0 { i += l.count }
                if i >= 0 && i < l.count { return l[i] }
                return .undefined("list object has no element \(key.repr)")
            }
            if case .string(let k) = key { return try attribute(of: value, k) }
        case (.string(let s), _):
            if case .int(var i) = key.exactNumber ?? .none {
                let scalars = Array(s.unicodeScalars)
                if i < 0 { i += scalars.count }
                if i >= 0 && i < scalars.count { return .string(String(scalars[i])) }
                return .undefined("str object has no element \(key.repr)")
            }
            if case .string(let k) = key { return try attribute(of: value, k) }
        case (.namespace, .string(let k)), (.loop, .string(let k)):
            return try attribute(of: value, k)
        case (.none, _):
            return .undefined("None has no element \(key.repr)")
        default: break
        }
        return .undefined("\(value.typeName) object has no element \(key.repr)")
    }

    /// `value[start:stop:step]` with Python's bounds and negative steps.
    static func slice(_ value: TemplateValue, start: TemplateValue?, stop: TemplateValue?,
                      step: TemplateValue?) throws -> TemplateValue {
        func integer(_ v: TemplateValue?) throws -> Int? {
            guard let v, !(v.isUndefined) else { return nil }
            if case .none = v { return nil }
            guard case .int(let i) = v.exactNumber ?? .none else {
                throw TemplateFailure("slice indices must be integers or None")
            }
            return i
        }
        let stepValue = try integer(step) ?? 1
        guard stepValue != 0 else { throw TemplateFailure("slice step cannot be zero") }
        func indices(_ count: Int) throws -> [Int] {
            func clamp(_ i: Int?, _ defaultValue: Int) -> Int {
                guard var i else { return defaultValue }
                if i < 0 { i += count }
                return stepValue > 0 ? min(max(i, 0), count) : min(max(i, -1), count - 1)
            }
            let from = clamp(try integer(start), stepValue > 0 ? 0 : count - 1)
            let to = clamp(try integer(stop), stepValue > 0 ? count : -1)
            return Array(stride(from: from, to: to, by: stepValue))
        }
        switch value {
        case .undefined(let why): throw TemplateFailure(why)
        case .list(let l): return .list(try indices(l.count).map { l[$0] })
        case .tuple(let l): return .tuple(try indices(l.count).map { l[$0] })
        case .string(let s), .markup(let s):
            let scalars = Array(s.unicodeScalars)
            var out = String.UnicodeScalarView()
            for i in try indices(scalars.count) { out.append(scalars[i]) }
            return .string(String(out))
        default: return .undefined("'\(value.typeName)' object is not subscriptable")
        }
    }

    /// Calls `receiver.name(arguments)` when it is a known method; nil when it is not a method.
    static func callMethod(_ receiver: TemplateValue, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue? {
        switch receiver.plain {
        case .string(let s) where stringMethods.contains(name): return try stringMethod(s, name, arguments)
        case .dict(let d) where isDictMethod(name):
            switch name {
            case "items": return .list(d.map { .tuple([$0.key.value, $0.value]) })
            case "keys": return .list(d.keys.map(\.value))
            case "values": return .list(d.values)
            case "copy": return receiver
            default:
                guard let key = arguments.value(0, "key") else { throw TemplateFailure("get expected at least 1 argument, got 0") }
                let fallback = arguments.value(1, "default") ?? .none
                return TemplateKey(key).flatMap { d[$0] } ?? fallback
            }
        case .list(let l) where isListMethod(name):
            switch name {
            case "copy": return receiver
            case "count":
                guard let needle = arguments.value(0, "value") else { throw TemplateFailure("count() takes exactly one argument") }
                return .int(l.filter { templateEquals($0, needle) }.count)
            default:
                guard let needle = arguments.value(0, "value") else { throw TemplateFailure("index expected at least 1 argument") }
                guard let at = l.firstIndex(where: { templateEquals($0, needle) }) else {
                    throw TemplateFailure("\(needle.repr) is not in list")
                }
                return .int(at)
            }
        default:
            return nil
        }
    }

    private static func stringArgument(_ arguments: TemplateArguments, _ index: Int, _ name: String) throws -> String? {
        switch arguments.value(index, name) {
        case nil, .none?: return nil
        case .string(let s)?: return s
        case let other?: throw TemplateFailure("\(name) must be str or None, not \(other.typeName)")
        }
    }

    private static func intArgument(_ arguments: TemplateArguments, _ index: Int, _ name: String, _ fallback: Int) throws -> Int {
        switch arguments.value(index, name) {
        case nil, .none?: return fallback
        case let value?:
            guard case .int(let i) = value.exactNumber ?? .none else {
                throw TemplateFailure("'\(value.typeName)' object cannot be interpreted as an integer")
            }
            return i
        }
    }

    private static func stringMethod(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
        switch name {
        case "split":
            return .list(try TemplateText.split(s, try stringArgument(arguments, 0, "sep"),
                                                maxSplit: try intArgument(arguments, 1, "maxsplit", -1)).map { .string($0) })
        case "rsplit":
            let maxSplit = try intArgument(arguments, 1, "maxsplit", -1)
            guard let separator = try stringArgument(arguments, 0, "sep") else {
                return .list(try TemplateText.split(s, nil).map { .string($0) })
            }
            return .list(try TemplateText.rsplit(s, separator, maxSplit: maxSplit).map { .string($0) })
        case "strip", "lstrip", "rstrip":
            return .string(TemplateText.strip(s, try stringArgument(arguments, 0, "chars"),
                                              leading: name != "rstrip", trailing: name != "lstrip"))
        case "startswith", "endswith":
            let test = name == "startswith" ? TemplateText.hasPrefix : TemplateText.hasSuffix
            switch arguments.value(0, "prefix")?.plain {
            case .string(let p)?: return .bool(test(s, p))
            case .list(let options)?:
                return .bool(options.contains { if case .string(let p) = $0 { test(s, p) } else { false } })
            case let other:
                throw TemplateFailure("\(name) first arg must be str or a tuple of str, not \(other?.typeName ?? "nothing")")
            }
        case "replace":
            guard let old = try stringArgument(arguments, 0, "old"), let new = try stringArgument(arguments, 1, "new") else {
                throw TemplateFailure("replace expected at least 2 arguments")
            }
            return .string(TemplateText.replace(s, old, new, count: try intArgument(arguments, 2, "count", -1)))
        case "format": return .string(try TemplateFormat.format(s, arguments))
        case "upper": return .string(TemplateText.upper(s))
        case "lower": return .string(TemplateText.lower(s))
        case "casefold": return .string(TemplateText.replace(TemplateText.lower(s), "ß", "ss"))
        case "title": return .string(TemplateText.title(s))
        case "capitalize": return .string(TemplateText.capitalize(s))
        case "swapcase":
            return .string(s.unicodeScalars.map { $0.properties.isUppercase ? String($0).lowercased() : String($0).uppercased() }.joined())
        case "find", "index", "rfind", "count":
            guard let needle = try stringArgument(arguments, 0, "sub") else { throw TemplateFailure("\(name) expects a string") }
            let h = Array(s.utf8), n = Array(needle.utf8)
            var positions: [Int] = []
            var i = 0
            while let at = TemplateText.find(n, in: h, from: i) {
                positions.append(at)
                if name == "find" || name == "index" { break }
                i = at + max(n.count, 1)
                if i > h.count { break }
            }
            if name == "count" { return .int(positions.count) }
            guard let at = positions.last else {
                if name == "index" { throw TemplateFailure("substring not found") }
                return .int(-1)
            }
            return .int(String(decoding: h[..<at], as: UTF8.self).unicodeScalars.count)
        case "join":
            let items = try (arguments.value(0, "iterable") ?? .list([])).iterated()
            return .string(try items.map {
                guard case .string(let t) = $0 else { throw TemplateFailure("sequence item: expected str instance, \($0.typeName) found") }
                return t
            }.joined(separator: s))
        case "isdigit", "isnumeric", "isdecimal":
            return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.numericType != nil })
        case "isalpha": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic })
        case "isalnum":
            return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil })
        case "isspace": return .bool(!s.isEmpty && s.unicodeScalars.allSatisfy(TemplateText.isSpace))
        case "islower": return .bool(s.contains { $0.isLetter } && s == s.lowercased())
        case "isupper": return .bool(s.contains { $0.isLetter } && s == s.uppercased())
        case "istitle": return .bool(s.contains { $0.isLetter } && s == TemplateText.title(s))
        case "splitlines": return .list(TemplateText.splitLines(s).map { .string($0) })
        case "removeprefix":
            let p = try stringArgument(arguments, 0, "prefix") ?? ""
            return .string(TemplateText.hasPrefix(s, p) ? String(decoding: Array(s.utf8).dropFirst(p.utf8.count), as: UTF8.self) : s)
        case "removesuffix":
            let p = try stringArgument(arguments, 0, "suffix") ?? ""
            return .string(TemplateText.hasSuffix(s, p) && !p.isEmpty ? String(decoding: Array(s.utf8).dropLast(p.utf8.count), as: UTF8.self) : s)
        case "center", "ljust", "rjust", "zfill":
            let width = try TemplateText.width(try intArgument(arguments, 0, "width", 0))
            let length = s.unicodeScalars.count
            guard width > length else { return .string(s) }
            if name == "zfill" {
                let sign = s.hasPrefix("-") || s.hasPrefix("+") ? String(s.prefix(1)) : ""
                return .string(sign + String(repeating: "0", count: width - length) + s.dropFirst(sign.count))
            }
            let fill = try stringArgument(arguments, 1, "fillchar") ?? " "
            let pad = width - length
            let left = name == "ljust" ? 0 : name == "rjust" ? pad : pad / 2 + (pad & width & 1)
            return .string(String(repeating: fill, count: left) + s + String(repeating: fill, count: pad - left))
        case "partition":
            let separator = try stringArgument(arguments, 0, "sep") ?? ""
            let parts = try TemplateText.split(s, separator, maxSplit: 1)
            return .tuple(parts.count == 2 ? [.string(parts[0]), .string(separator), .string(parts[1])]
                                           : [.string(s), .string(""), .string("")])
        case "expandtabs": return .string(TemplateText.replace(s, "\t", "        "))
        default: throw TemplateFailure("'str' object has no attribute '\(name)'")
        }
    }
}
