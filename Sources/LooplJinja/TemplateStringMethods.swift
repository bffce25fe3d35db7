/// The methods of Python's `str` that templates call, with Python's arguments and results.
enum TemplateStringMethods {
    static let names: Set<String> = [
        "split", "rsplit", "strip", "lstrip", "rstrip", "startswith", "endswith", "replace", "format", "upper",
        "lower", "title", "capitalize", "find", "rfind", "index", "rindex", "count", "join", "isdigit", "isalpha",
        "isalnum", "isspace", "islower", "isupper", "splitlines", "center", "zfill", "removeprefix", "removesuffix",
        "swapcase", "casefold", "partition", "rpartition", "ljust", "rjust", "isnumeric", "isdecimal", "istitle",
        "expandtabs",
    ]

    /// `s[start:end]` for the optional start and end arguments after the first, and where it begins in `s`.
    private static func window(_ s: String, _ arguments: TemplateArguments) throws -> (text: String, offset: Int) {
        let start = arguments.value(1, "start"), end = arguments.value(2, "end")
        if start == nil && end == nil { return (s, 0) }
        let count = s.unicodeScalars.count
        func bound(_ value: TemplateValue?, _ fallback: Int) throws -> Int {
            guard let value else { return fallback }
            if case .none = value { return fallback }
            guard case .int(let i) = value.exactNumber ?? .none else {
                throw TemplateFailure("slice indices must be integers or None or have an __index__ method")
            }
            return min(max(i < 0 ? i + count : i, 0), count)
        }
        let from = try bound(start, 0), to = try bound(end, count)
        guard from < to else { return ("", from) }
        let scalars = s.unicodeScalars
        let lower = scalars.index(scalars.startIndex, offsetBy: from), upper = scalars.index(scalars.startIndex, offsetBy: to)
        return (String(scalars[lower..<upper]), from)
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

    /// `s.name(arguments)`.
    static func call(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
        if let answer = classify(s, name) { return .bool(answer) }
        switch name {
        case "split", "rsplit", "splitlines", "partition", "rpartition": return try split(s, name, arguments)
        case "find", "index", "rfind", "rindex", "count": return try search(s, name, arguments)
        case "center", "ljust", "rjust", "zfill": return try pad(s, name, arguments)
        case "expandtabs": return .string(expandTabs(s, size: try intArgument(arguments, 0, "tabsize", 8)))
        default: return try transform(s, name, arguments)
        }
    }

    /// The `is...` tests; nil for any other name.
    private static func classify(_ s: String, _ name: String) -> Bool? {
        switch name {
        case "isdigit", "isnumeric", "isdecimal":
            return !s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.numericType != nil }
        case "isalpha": return !s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic }
        case "isalnum":
            return !s.isEmpty && s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil }
        case "isspace": return !s.isEmpty && s.unicodeScalars.allSatisfy(TemplateText.isSpace)
        case "islower": return s.contains { $0.isLetter } && s == s.lowercased()
        case "isupper": return s.contains { $0.isLetter } && s == s.uppercased()
        case "istitle": return s.contains { $0.isLetter } && s == TemplateText.title(s)
        default: return nil
        }
    }

    /// `split`, `rsplit`, `splitlines`, `partition` and `rpartition`.
    private static func split(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
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
        case "splitlines":
            let keepEnds = arguments.value(0, "keepends")?.isTruthy ?? false
            return .list(TemplateText.splitLines(s, keepEnds: keepEnds).map { .string($0) })
        default:
            guard let separator = try stringArgument(arguments, 0, "sep"), !separator.isEmpty else {
                throw TemplateFailure("empty separator")
            }
            let parts = name == "partition" ? try TemplateText.split(s, separator, maxSplit: 1)
                                            : try TemplateText.rsplit(s, separator, maxSplit: 1)
            if parts.count == 2 { return .tuple([.string(parts[0]), .string(separator), .string(parts[1])]) }
            return .tuple(name == "partition" ? [.string(s), .string(""), .string("")] : [.string(""), .string(""), .string(s)])
        }
    }

    /// `find`, `index`, `rfind`, `rindex` and `count`, in code points.
    private static func search(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
        guard let needle = try stringArgument(arguments, 0, "sub") else { throw TemplateFailure("\(name) expects a string") }
        let (text, offset) = try window(s, arguments)
        let h = Array(text.utf8), n = Array(needle.utf8)
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
            if name.hasSuffix("index") { throw TemplateFailure("substring not found") }
            return .int(-1)
        }
        return .int(offset + String(decoding: h[..<at], as: UTF8.self).unicodeScalars.count)
    }

    /// `center`, `ljust`, `rjust` and `zfill`.
    private static func pad(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
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
    }

    /// `expandtabs(size)`: tabs to spaces up to the next multiple of `size`.
    private static func expandTabs(_ s: String, size: Int) -> String {
        var out = String.UnicodeScalarView(), column = 0
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\t":
                let spaces = size > 0 ? size - column % size : 0
                out.append(contentsOf: String(repeating: " ", count: spaces).unicodeScalars)
                column += spaces
            case "\n", "\r": out.append(scalar); column = 0
            default: out.append(scalar); column += 1
            }
        }
        return String(out)
    }

    /// The methods that give a new string, and `startswith`/`endswith`.
    private static func transform(_ s: String, _ name: String, _ arguments: TemplateArguments) throws -> TemplateValue {
        switch name {
        case "strip", "lstrip", "rstrip":
            return .string(TemplateText.strip(s, try stringArgument(arguments, 0, "chars"),
                                              leading: name != "rstrip", trailing: name != "lstrip"))
        case "startswith", "endswith":
            let test = name == "startswith" ? TemplateText.hasPrefix : TemplateText.hasSuffix
            let s = try window(s, arguments).text
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
        case "join":
            let items = try (arguments.value(0, "iterable") ?? .list([])).iterated()
            return .string(try items.map {
                guard case .string(let t) = $0 else { throw TemplateFailure("sequence item: expected str instance, \($0.typeName) found") }
                return t
            }.joined(separator: s))
        case "removeprefix":
            let p = try stringArgument(arguments, 0, "prefix") ?? ""
            return .string(TemplateText.hasPrefix(s, p) ? String(decoding: Array(s.utf8).dropFirst(p.utf8.count), as: UTF8.self) : s)
        case "removesuffix":
            let p = try stringArgument(arguments, 0, "suffix") ?? ""
            return .string(TemplateText.hasSuffix(s, p) && !p.isEmpty ? String(decoding: Array(s.utf8).dropLast(p.utf8.count), as: UTF8.self) : s)
        default: throw TemplateFailure("'str' object has no attribute '\(name)'")
        }
    }
}
