/// The `loop` variable inside a `for` block.
final class TemplateLoop {
    let items: [TemplateValue]
    var index0 = 0
    /// The arguments of the last `loop.changed(...)` call.
    private var lastChanged: [TemplateValue]?
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
            return .function(TemplateFunction("loop.changed") { arguments in
                let values = arguments.positional
                defer { self.lastChanged = values }
                guard let last = self.lastChanged, last.count == values.count else { return .bool(true) }
                return .bool(!zip(last, values).allSatisfy { templateEquals($0, $1) })
            })
        default: return .undefined("'LoopContext object' has no attribute '\(name)'")
        }
    }
}
