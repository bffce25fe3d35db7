import Foundation
import Loopl

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

    /// Removes `--name value` (or `--name=value`, or `-short value`) and returns the value.
    mutating func option(_ name: String, short: String? = nil) throws(UsageError) -> String? {
        let long = "--\(name)"
        if let index = words.firstIndex(where: { $0.hasPrefix(long + "=") }) {
            let value = String(words[index].dropFirst(long.count + 1))
            words.remove(at: index)
            return value
        }
        guard let index = words.firstIndex(where: { $0 == long || short.map { "-" + $0 } == $0 }) else { return nil }
        guard index + 1 < words.count else { throw UsageError("\(words[index]) needs a value.") }
        let value = words[index + 1]
        words.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `--name N` (or `-short N`) and returns N, which must be a whole number in `range`.
    mutating func integer(_ name: String, short: String? = nil, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name, short: short) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'.")
        }
        return value
    }

    /// Removes `option` and returns its value: the one given, else its environment variable's, else
    /// its default. A value given must be of its kind and in its range.
    mutating func value(_ option: CLIOption) throws(UsageError) -> String? {
        if case .flag = option.value { return flag(option.name) ? "" : nil }
        if let given = try self.option(option.name, short: option.short) {
            try option.check(given)
            return given
        }
        return option.environment.flatMap { ProcessInfo.processInfo.environment[$0] } ?? option.defaultValue
    }

    /// Removes the flag `option` and tells whether it was there.
    mutating func flag(_ option: CLIOption) -> Bool { flag(option.name) }

    /// Removes `option`, a whole number, and returns its value (else its default).
    mutating func integer(_ option: CLIOption) throws(UsageError) -> Int? { try value(option).flatMap { Int($0) } }

    /// Removes `option`, a number, and returns its value (else its default).
    mutating func number(_ option: CLIOption) throws(UsageError) -> Double? { try value(option).flatMap { Double($0) } }

    /// Removes `option`, a comma-separated list, and returns its items, trimmed.
    mutating func list(_ option: CLIOption) throws(UsageError) -> [String]? {
        try value(option).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The command line's ``BackendOverrides``: `-m/--model`, `-t/--threads`, `-c/--ctx-size`, `-ngl/--gpu-layers`.
    mutating func backendOverrides() throws(UsageError) -> BackendOverrides {
        BackendOverrides(model: try value(SharedOptions.model), threads: try integer(SharedOptions.threads),
                         contextLength: try integer(SharedOptions.contextSize), gpuLayers: try integer(SharedOptions.gpuLayers),
                         chatTemplate: try value(SharedOptions.chatTemplate))
    }

    /// Removes and returns the next positional argument (a lone `-` is one: standard input).
    mutating func positional() -> String? {
        if let index = words.firstIndex(where: { !$0.hasPrefix("-") || $0 == "-" }) { return words.remove(at: index) }
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
