/// The words of a command line after the subcommand, taken option by option.
///
/// Options are `--name value` or `--name=value`; flags are `--name`; words after `--` are
/// positional. A command takes its options and flags first, then its positionals, then calls
/// ``finish()``, which rejects whatever is left.
struct Arguments {
    private var words: [String]
    private var afterDashes: [String]

    init(_ words: [String]) {
        if let dashes = words.firstIndex(of: "--") {
            self.words = Array(words[..<dashes])
            self.afterDashes = Array(words[(dashes + 1)...])
        } else {
            self.words = words
            self.afterDashes = []
        }
    }

    /// True when `--help` or `-h` was given.
    var wantsHelp: Bool { words.contains("--help") || words.contains("-h") }

    /// Removes a flag and tells whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = words.firstIndex(of: "--\(name)") else { return false }
        words.remove(at: index)
        return true
    }

    /// Removes `--name value` (or `--name=value`) and returns the value.
    mutating func option(_ name: String) throws(UsageError) -> String? {
        let long = "--\(name)"
        if let index = words.firstIndex(where: { $0.hasPrefix(long + "=") }) {
            let value = String(words[index].dropFirst(long.count + 1))
            words.remove(at: index)
            return value
        }
        guard let index = words.firstIndex(of: long) else { return nil }
        guard index + 1 < words.count else { throw UsageError("\(long) needs a value.") }
        let value = words[index + 1]
        words.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `--name N` and returns N, which must be a whole number in `range`.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'.")
        }
        return value
    }

    /// Removes and returns the next positional argument.
    mutating func positional() -> String? {
        if let index = words.firstIndex(where: { !$0.hasPrefix("-") }) { return words.remove(at: index) }
        return afterDashes.isEmpty ? nil : afterDashes.removeFirst()
    }

    /// Rejects any word that no option took.
    func finish() throws(UsageError) {
        if let word = words.first {
            throw UsageError(word.hasPrefix("-") ? "Unknown option '\(word)'." : "Unexpected argument '\(word)'.")
        }
        if let word = afterDashes.first { throw UsageError("Unexpected argument '\(word)'.") }
    }
}
