/// Attribute and item access, slicing, and the Python methods of str, dict and list that the
/// immutable sandbox allows.
enum TemplateMethods {
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
            if TemplateStringMethods.names.contains(name) { return boundMethod(value, name) }
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
        case .string(let s) where TemplateStringMethods.names.contains(name): return try TemplateStringMethods.call(s, name, arguments)
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
}
