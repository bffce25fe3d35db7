/// The variables of one scope: few, so searched linearly. A reference, so that a macro defined
/// in a scope sees that scope's variables as they are when it is called, as Jinja's closures do.
final class TemplateScope {
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

    /// Forgets every variable: ends the reference cycles a render may leave (a macro stored in the scope it sees).
    func removeAll() { entries = [] }
}
