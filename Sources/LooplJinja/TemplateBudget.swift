/// The allocation budget of one render: before a string or list is built, an upper bound of its
/// size is checked against ``TemplateLimits/maxAllocationBytes``, so that a template cannot make
/// the host allocate gigabytes before any output or iteration limit is reached.
struct TemplateBudget {
    /// The most bytes one built string or list may hold.
    let maxBytes: Int
    /// The bytes a list, tuple or dict item is counted as, besides its own contents.
    static let itemBytes = 16

    /// Throws when `bytes` is past the budget; `what` names the operation for the message.
    func check(_ bytes: Int, _ what: String) throws {
        guard bytes > maxBytes else { return }
        throw TemplateFailure("\(what) would build about \(bytes) bytes, too large for the template's allocation budget of \(maxBytes) bytes (TemplateLimits.maxAllocationBytes)")
    }

    /// The bytes `value` holds: its strings' UTF-8 and ``itemBytes`` per item; stops counting past the budget.
    func footprint(_ value: TemplateValue) -> Int {
        switch value {
        case .string(let s), .markup(let s): return s.utf8.count
        case .list(let items), .tuple(let items): return sum(items)
        case .dict(let d): return sum(d.values) + sum(d.entries.map(\.key.value))
        default: return 8
        }
    }

    private func sum(_ items: [TemplateValue]) -> Int {
        var total = Self.times(items.count, Self.itemBytes)
        for item in items {
            total = Self.plus(total, footprint(item))
            if total > maxBytes { break }
        }
        return total
    }

    /// The bound of what `a op b` builds.
    func checkBinary(_ op: String, _ a: TemplateValue, _ b: TemplateValue) throws {
        switch op {
        case "~", "+", "%": try check(Self.plus(Self.plus(footprint(a), footprint(b)), 64), "'\(op)'")
        case "*":
            if case .int(let n) = b.plain { try check(Self.times(footprint(a), n), "repetition") }
            if case .int(let n) = a.plain { try check(Self.times(footprint(b), n), "repetition") }
        default: break
        }
    }

    /// The bound of what the filter `name` builds from `value`.
    func checkFilter(_ name: String, _ value: TemplateValue, _ arguments: TemplateArguments) throws {
        let size = footprint(value)
        let text: String = if case .string(let s) = value.plain { s } else { "" }
        let bound: Int
        switch name {
        case "replace": bound = Self.replaced(text, old: arguments.value(0, "old")?.text, new: arguments.value(1, "new")?.text)
        case "join":
            let items = (try? value.plain.iterated()) ?? []
            bound = Self.plus(size, Self.times(items.count, arguments.value(0, "d")?.text.utf8.count ?? 0))
        case "indent":
            var width = 4
            if case .int(let n)? = arguments.value(0, "width") { width = n }
            if case .string(let t)? = arguments.value(0, "width") { width = t.utf8.count }
            bound = Self.plus(size, Self.times(Self.count(10, in: text) + 2, width))
        case "batch":
            guard case .int(let n)? = arguments.value(0, "linecount"), n > 0 else { return }
            let count = (try? value.plain.iterated().count) ?? 0
            bound = Self.plus(size, Self.times(Self.times(count / n + 1, n), Self.itemBytes * 2))
        case "center": bound = Self.plus(size, Self.widthArgument(arguments, "width"))
        case "format", "tojson": bound = Self.plus(Self.times(size, 8), Self.times(Self.nodes(value, budget: self), Self.widthArgument(arguments, "indent") + 8))
        case "e", "escape", "forceescape": bound = Self.times(size, 6)
        case "list": bound = text.isEmpty ? size : Self.times(size, Self.itemBytes + 4)
        default: return
        }
        try check(bound, "the filter '\(name)'")
    }

    /// The bound of what the method `receiver.name(...)` builds.
    func checkMethod(_ receiver: TemplateValue, _ name: String, _ arguments: TemplateArguments) throws {
        guard case .string(let s) = receiver.plain else { return }
        let size = s.utf8.count
        let bound: Int
        switch name {
        case "replace": bound = Self.replaced(s, old: arguments.value(0, "old")?.text, new: arguments.value(1, "new")?.text)
        case "expandtabs":
            var tab = 8
            if case .int(let n)? = arguments.value(0, "tabsize") { tab = n }
            bound = Self.plus(size, Self.times(Self.count(9, in: s), max(tab, 0)))
        case "center", "ljust", "rjust", "zfill": bound = Self.plus(size, Self.widthArgument(arguments, "width"))
        case "join":
            let items = (try? (arguments.value(0, "iterable") ?? .list([])).iterated()) ?? []
            bound = Self.plus(footprint(.list(items)), Self.times(items.count, size))
        case "split", "rsplit", "splitlines":
            let separator = max(arguments.value(0, "sep")?.text.utf8.count ?? 1, 1)
            bound = Self.plus(size, Self.times(size / separator + 1, Self.itemBytes * 2))
        case "format": bound = Self.plus(Self.times(size, 2), Self.times(footprint(.list(arguments.positional)), 2))
        default: return
        }
        try check(bound, "the method '\(name)'")
    }

    /// The bound of `text.replace(old, new)`: every possible match replaced.
    private static func replaced(_ text: String, old: String?, new: String?) -> Int {
        let size = text.utf8.count, oldSize = old?.utf8.count ?? 0, newSize = new?.utf8.count ?? 0
        let matches = oldSize == 0 ? text.unicodeScalars.count + 1 : size / oldSize
        return plus(size, times(matches, newSize))
    }

    private static func widthArgument(_ arguments: TemplateArguments, _ name: String) -> Int {
        switch arguments.value(0, name) ?? arguments.value(1, name) {
        case .int(let n)?: max(n, 0)
        case .string(let s)?: s.utf8.count
        default: 0
        }
    }

    /// The items in `value`, nested ones included, times their depth: a bound of an indented dump's lines.
    private static func nodes(_ value: TemplateValue, budget: TemplateBudget, depth: Int = 1) -> Int {
        var total = depth
        let children: [TemplateValue] = switch value {
        case .list(let items), .tuple(let items): items
        case .dict(let d): d.values
        default: []
        }
        for child in children {
            total = plus(total, nodes(child, budget: budget, depth: depth + 1))
            if total > budget.maxBytes { break }
        }
        return total
    }

    private static func count(_ byte: UInt8, in text: String) -> Int {
        var n = 0
        for b in text.utf8 where b == byte { n += 1 }
        return n
    }

    static func plus(_ a: Int, _ b: Int) -> Int {
        let (r, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : r
    }

    static func times(_ a: Int, _ b: Int) -> Int {
        let (r, overflow) = max(a, 0).multipliedReportingOverflow(by: max(b, 0))
        return overflow ? .max : r
    }
}
