/// Python's `==`: numbers compare by value across int, float and bool.
func templateEquals(_ a: TemplateValue, _ b: TemplateValue, depth: Int = 0) -> Bool {
    guard depth <= TemplateValue.maxDepth else { return false }
    if case .string(let x) = a, case .string(let y) = b {
        return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
    }
    switch (a.plain, b.plain) {
    case (.undefined, .undefined), (.none, .none): return true
    case (.string(let x), .string(let y)):
        // Python compares code points; Swift's == would equate canonically equivalent strings.
        return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
    case (.list(let x), .list(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { templateEquals($0, $1, depth: depth + 1) }
    case (.dict(let x), .dict(let y)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { templateEquals(value, $0, depth: depth + 1) } ?? false }
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

/// Python's ordering for `<`, `sort` and friends; nil when Python would raise a TypeError.
func templateCompare(_ a: TemplateValue, _ b: TemplateValue, depth: Int = 0) -> Int? {
    guard depth <= TemplateValue.maxDepth else { return nil }
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
        for (p, q) in zip(x, y) where !templateEquals(p, q, depth: depth + 1) { return templateCompare(p, q, depth: depth + 1) }
        return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
    default: return nil
    }
}

/// A dict that keeps insertion order, as Python's does.
