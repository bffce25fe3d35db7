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
