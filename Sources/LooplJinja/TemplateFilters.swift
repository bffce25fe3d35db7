import Foundation

/// The filters of `value | name(arguments)`, with Jinja's behaviour (and transformers' `tojson`).
enum TemplateFilters {
    static func apply(_ name: String, to value: TemplateValue, _ arguments: TemplateArguments,
                      renderer: TemplateRenderer) throws -> TemplateValue {
        if name == "safe" { return .markup(value.text) }
        let original = value
        var text: String { original.text }
        let value = value.plain
        func argument(_ index: Int, _ key: String) -> TemplateValue? { arguments.value(index, key) }
        func flag(_ index: Int, _ key: String) -> Bool { argument(index, key)?.isTruthy ?? false }
        func attributeArgument(_ index: Int) -> String? {
            if case .string(let a)? = argument(index, "attribute") { a } else { nil }
        }
        switch name {
        case "tojson":
            return .string(try toJSON(value, arguments))
        case "string":
            if case .string = value { return value }
            return .string(text)
        case "e", "escape", "forceescape":
            return .string(escapeHTML(text))
        case "trim":
            let chars: String? = if case .string(let c)? = argument(0, "chars") { c } else { nil }
            return .string(TemplateText.strip(text, chars, leading: true, trailing: true))
        case "length", "count":
            return .int(try value.length())
        case "upper": return .string(TemplateText.upper(text))
        case "lower": return .string(TemplateText.lower(text))
        case "capitalize": return .string(TemplateText.capitalize(text))
        case "title": return .string(jinjaTitle(text))
        case "default", "d":
            let fallback = argument(0, "default_value") ?? .string("")
            if value.isUndefined || (flag(1, "boolean") && !value.isTruthy) { return fallback }
            return original
        case "first":
            return try value.iterated().first ?? .undefined("No first item, sequence was empty.")
        case "last":
            return try value.iterated().last ?? .undefined("No last item, sequence was empty.")
        case "join":
            var items = try value.iterated()
            if let attribute = attributeArgument(1) { items = try items.map { try path($0, attribute) } }
            let separator = argument(0, "d")?.text ?? ""
            return .string(items.map(\.text).joined(separator: separator))
        case "replace":
            guard let old = argument(0, "old"), let new = argument(1, "new") else {
                throw TemplateFailure("replace needs the old and the new string")
            }
            var count = -1
            if case .int(let c)? = argument(2, "count") { count = c }
            return .string(TemplateText.replace(text, old.text, new.text, count: count))
        case "list":
            return .list(try value.iterated())
        case "int":
            if case .undefined(let why) = value { throw TemplateFailure(why) }
            let fallback = argument(0, "default") ?? .int(0)
            switch value {
            case .int: return value
            case .bool(let b): return .int(b ? 1 : 0)
            case .double(let d):
                guard d.isFinite else { return fallback }
                guard abs(d) < 9.2e18 else { throw TemplateFailure("\(TemplateValue.pythonFloat(d)) is too large for a 64-bit integer") }
                return .int(Int(d))
            case .string(let s):
                let trimmed = TemplateText.replace(TemplateText.strip(s, nil, leading: true, trailing: true), "_", "")
                if let i = Int(trimmed) { return .int(i) }
                if let d = Double(trimmed), d.isFinite, abs(d) < 9.2e18 { return .int(Int(d)) }
                return fallback
            default: return fallback
            }
        case "float":
            if case .undefined(let why) = value { throw TemplateFailure(why) }
            let fallback = argument(0, "default") ?? .double(0)
            switch value {
            case .int, .bool, .double: return .double(value.asDouble)
            case .string(let s): return Double(TemplateText.strip(s, nil, leading: true, trailing: true)).map { .double($0) } ?? fallback
            default: return fallback
            }
        case "abs":
            switch value {
            case .int(let i): return .int(i == .min ? i : abs(i))
            case .bool(let b): return .int(b ? 1 : 0)
            case .double(let d): return .double(abs(d))
            default: throw TemplateFailure("bad operand type for abs(): '\(value.typeName)'")
            }
        case "round":
            var precision = 0
            if case .int(let p)? = argument(0, "precision") { precision = p }
            let method = argument(1, "method")?.text ?? "common"
            guard value.exactNumber != nil else { throw TemplateFailure("type \(value.typeName) doesn't define __round__ method") }
            let scale = pow(10.0, Double(precision))
            let x = value.asDouble * scale
            let rounded: Double = switch method {
            case "ceil": x.rounded(.up)
            case "floor": x.rounded(.down)
            default: x.rounded(.toNearestOrEven)
            }
            if case .int = value.exactNumber, method == "common" { return value.exactNumber ?? value }
            return .double(rounded / scale)
        case "indent":
            guard case .string(let text) = value else {
                throw TemplateFailure("unsupported operand type(s) for +=: '\(value.typeName)' and 'str'")
            }
            return .string(try indent(text, arguments))
        case "items":
            switch value {
            case .undefined: return .list([])
            case .dict(let d): return .list(d.map { .tuple([$0.key.value, $0.value]) })
            default: throw TemplateFailure("Can only get item pairs from a mapping.")
            }
        case "dictsort":
            guard case .dict(let d) = value else { throw TemplateFailure("You can only sort by either \"key\" or \"value\"") }
            let caseSensitive = flag(0, "case_sensitive")
            let byValue = argument(1, "by")?.text == "value"
            let pairs = try sorted(d.map { ($0.key, $0.value) }, reverse: flag(2, "reverse")) { pair in
                let keyed = byValue ? pair.1 : pair.0.value
                return caseSensitive ? keyed : folded(keyed)
            }
            return .list(pairs.map { .tuple([$0.0.value, $0.1]) })
        case "map":
            let items = value.isTruthy ? try value.iterated() : []
            if let attribute = attributeArgument(0), arguments.positional.isEmpty {
                let fallback = arguments.keywords.first { $0.name == "default" }?.value
                return .generator(try items.map {
                    let found = try path($0, attribute)
                    if found.isUndefined, let fallback { return fallback }
                    return found
                })
            }
            guard case .string(let filter)? = arguments.positional.first else {
                throw TemplateFailure("map requires a filter name or attribute=")
            }
            var rest = arguments
            rest.positional.removeFirst()
            return .generator(try items.map { try apply(filter, to: $0, rest, renderer: renderer) })
        case "select", "reject":
            let keep = name == "select"
            var rest = arguments
            let test = rest.positional.isEmpty ? nil : rest.positional.removeFirst().text
            return .generator(try (value.isTruthy ? value.iterated() : []).filter { item in
                let passed = try test.map { try TemplatePredicates.apply($0, to: item, rest, renderer: renderer) } ?? item.isTruthy
                return passed == keep
            })
        case "selectattr", "rejectattr":
            let keep = name == "selectattr"
            var rest = arguments
            guard !rest.positional.isEmpty else { throw TemplateFailure("\(name) needs an attribute name") }
            let attribute = rest.positional.removeFirst().text
            let test = rest.positional.isEmpty ? nil : rest.positional.removeFirst().text
            return .generator(try (value.isTruthy ? value.iterated() : []).filter { item in
                let field = try path(item, attribute)
                let passed = try test.map { try TemplatePredicates.apply($0, to: field, rest, renderer: renderer) } ?? field.isTruthy
                return passed == keep
            })
        case "unique":
            let caseSensitive = flag(0, "case_sensitive")
            let attribute = attributeArgument(1)
            var seen: [TemplateValue] = []
            var result: [TemplateValue] = []
            for item in try value.iterated() {
                var key = try attribute.map { try path(item, $0) } ?? item
                if !caseSensitive { key = folded(key) }
                if !seen.contains(where: { templateEquals($0, key) }) {
                    seen.append(key)
                    result.append(item)
                }
            }
            return .list(result)
        case "sum":
            var total = argument(1, "start") ?? .int(0)
            for item in try value.iterated() {
                total = try TemplateOperators.binary("+", total, try attributeArgument(0).map { try path(item, $0) } ?? item)
            }
            return total
        case "min", "max":
            let items = try value.iterated()
            guard !items.isEmpty else { return .undefined("No aggregated item, sequence was empty.") }
            let caseSensitive = flag(0, "case_sensitive")
            let attribute = attributeArgument(1)
            let ordered = try sorted(items, reverse: false) { item in
                let key = try attribute.map { try path(item, $0) } ?? item
                return caseSensitive ? key : folded(key)
            }
            return (name == "min" ? ordered.first : ordered.last) ?? .none
        case "reverse":
            if case .string(let s) = value { return .string(String(String.UnicodeScalarView(s.unicodeScalars.reversed()))) }
            return .list(try value.iterated().reversed())
        case "sort":
            let caseSensitive = flag(1, "case_sensitive")
            let attribute = attributeArgument(2)
            return .list(try sorted(try value.iterated(), reverse: flag(0, "reverse")) { item in
                let key = try attribute.map { try path(item, $0) } ?? item
                return caseSensitive ? key : folded(key)
            })
        case "batch":
            guard case .int(let size)? = argument(0, "linecount"), size > 0 else { throw TemplateFailure("batch needs a positive size") }
            let items = try value.iterated()
            var batches: [TemplateValue] = []
            var index = 0
            while index < items.count {
                var chunk = Array(items[index..<min(index + size, items.count)])
                if chunk.count < size, let fill = argument(1, "fill_with") {
                    chunk += Array(repeating: fill, count: size - chunk.count)
                }
                batches.append(.list(chunk))
                index += size
            }
            return .list(batches)
        case "wordcount":
            var count = 0, inWord = false
            for scalar in text.unicodeScalars {
                let isWord = scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
                if isWord && !inWord { count += 1 }
                inWord = isWord
            }
            return .int(count)
        case "center":
            var width = 80
            if case .int(let w)? = argument(0, "width") { width = w }
            return try TemplateMethods.callMethod(.string(text), "center", TemplateArguments(positional: [.int(width)]))
                ?? value
        case "format":
            return .string(try TemplateFormat.printf(value.text, arguments.positional))
        case "attr":
            return try TemplateMethods.attribute(of: value, argument(0, "name")?.text ?? "")
        case "truncate":
            var length = 255
            if case .int(let l)? = argument(0, "length") { length = l }
            let killwords = flag(1, "killwords")
            let end = argument(2, "end")?.text ?? "..."
            var leeway = 5
            if case .int(let l)? = argument(3, "leeway") { leeway = l }
            let scalars = Array(value.text.unicodeScalars)
            if scalars.count <= length + leeway { return .string(value.text) }
            let cut = max(0, length - end.unicodeScalars.count)
            var kept = String(String.UnicodeScalarView(scalars[..<cut]))
            if !killwords, let space = kept.lastIndex(of: " ") { kept = String(kept[..<space]) }
            return .string(kept + end)
        case "striptags":
            var out = "", inTag = false
            for scalar in value.text.unicodeScalars {
                if scalar == "<" { inTag = true } else if scalar == ">" { inTag = false } else if !inTag { out.unicodeScalars.append(scalar) }
            }
            return .string(unescapeHTML(try TemplateText.split(out, nil).joined(separator: " ")))
        default:
            throw TemplateFailure("No filter named '\(name)'")
        }
    }

    /// `a.b.0` as `attribute=` names it.
    static func path(_ value: TemplateValue, _ dotted: String) throws -> TemplateValue {
        var current = value
        for part in dotted.split(separator: ".", omittingEmptySubsequences: false) {
            if current.isUndefined { return current }
            current = try TemplateMethods.item(of: current, Int(part).map { .int($0) } ?? .string(String(part)))
        }
        return current
    }

    private static func folded(_ value: TemplateValue) -> TemplateValue {
        if case .string(let s) = value { return .string(s.lowercased()) }
        return value
    }

    /// A stable sort by `key`, raising Python's TypeError for values that do not compare.
    private static func sorted<T>(_ items: [T], reverse: Bool, key: (T) throws -> TemplateValue) throws -> [T] {
        let keyed = try items.map { (try key($0), $0) }
        var failure: TemplateFailure?
        let result = keyed.enumerated().sorted { a, b in
            guard let order = templateCompare(a.element.0, b.element.0) else {
                failure = TemplateFailure("'<' not supported between instances of '\(a.element.0.typeName)' and '\(b.element.0.typeName)'")
                return a.offset < b.offset
            }
            if order == 0 { return a.offset < b.offset }
            return reverse ? order > 0 : order < 0
        }
        if let failure { throw failure }
        return result.map { $0.element.1 }
    }

    private static func toJSON(_ value: TemplateValue, _ arguments: TemplateArguments) throws -> String {
        let ensureASCII = arguments.value(0, "ensure_ascii")?.isTruthy ?? false
        var indent: String?
        switch arguments.value(1, "indent") {
        case .int(let n)?: indent = String(repeating: " ", count: try TemplateText.width(n))
        case .string(let s)?: indent = s
        default: break
        }
        var separators: (item: String, key: String)?
        if case .list(let pair)? = arguments.value(2, "separators")?.plain, pair.count == 2 {
            separators = (pair[0].text, pair[1].text)
        }
        return try TemplateJSON.dumps(value, ensureASCII: ensureASCII, indent: indent, separators: separators,
                                      sortKeys: arguments.value(3, "sort_keys")?.isTruthy ?? false)
    }

    static func escapeHTML(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&#34;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `&amp;`, `&#39;`, `&#x41;` and the other common character references back as characters.
    private static func unescapeHTML(_ s: String) -> String {
        let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}"]
        var out = "", rest = s[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            rest = rest[rest.index(after: amp)...]
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else { out += "&"; continue }
            let name = rest[..<semicolon]
            var replacement = named[String(name)]
            if name.hasPrefix("#") {
                let digits = name.dropFirst()
                let code = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
                replacement = code.flatMap(Unicode.Scalar.init).map { String($0) }
            }
            guard let replacement else { out += "&"; continue }
            out += replacement
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    /// Jinja's `title`: each word (split at whitespace, `-`, brackets) capitalized.
    private static func jinjaTitle(_ s: String) -> String {
        var out = "", atStart = true
        for scalar in s.unicodeScalars {
            let isBoundary = TemplateText.isSpace(scalar) || "-({[<".unicodeScalars.contains(scalar)
            if isBoundary {
                out.unicodeScalars.append(scalar)
                atStart = true
            } else {
                out += atStart ? String(scalar).uppercased() : String(scalar).lowercased()
                atStart = false
            }
        }
        return out
    }

    /// Jinja's `indent(width=4, first=False, blank=False)`.
    private static func indent(_ s: String, _ arguments: TemplateArguments) throws -> String {
        var indentation = "    "
        switch arguments.value(0, "width") {
        case .int(let n)?: indentation = String(repeating: " ", count: try TemplateText.width(n))
        case .string(let t)?: indentation = t
        default: break
        }
        let first = arguments.value(1, "first")?.isTruthy ?? false
        let blank = arguments.value(2, "blank")?.isTruthy ?? false
        var lines = TemplateText.splitLines(s + "\n")
        var result: String
        if blank {
            result = lines.joined(separator: "\n" + indentation)
        } else {
            result = lines.isEmpty ? "" : lines.removeFirst()
            if !lines.isEmpty {
                result += "\n" + lines.map { $0.isEmpty ? $0 : indentation + $0 }.joined(separator: "\n")
            }
        }
        return first ? indentation + result : result
    }
}
