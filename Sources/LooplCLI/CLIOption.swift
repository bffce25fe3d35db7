import Loopl

/// One option of a command, declared once: its names, value, default, range, environment
/// variable and help. ``Arguments`` parses by it and ``help(_:)`` lists it.
struct CLIOption: Sendable {
    /// What follows the option's name.
    enum Value: Sendable {
        /// Nothing: the option is a flag.
        case flag
        case text
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Double>)
        /// One of these words.
        case choice([String])
    }

    let name: String
    let short: String?
    /// The value's name in the help: `N`, `FILE`.
    let placeholder: String
    let value: Value
    /// The value when the option is not given (after `environment`); nil for none.
    let defaultValue: String?
    /// The help's words for the default, when they say more than `defaultValue`.
    let defaultHelp: String?
    /// The variable read when the option is not given.
    let environment: String?
    /// Where a given value goes, for an option of ``GenerationOptions``; the value is checked first.
    let sets: (@Sendable (inout GenerationOptions, String) -> Void)?
    /// What it does; `{range}` stands for the range, such as "1 to 100", and `{default}` for the
    /// default's parenthesis, which otherwise ends the sentence.
    let help: String

    init(_ name: String, short: String? = nil, _ placeholder: String = "", _ value: Value = .text, default defaultValue: String? = nil,
         defaultHelp: String? = nil, environment: String? = nil, help: String,
         sets: (@Sendable (inout GenerationOptions, String) -> Void)? = nil) {
        self.name = name
        self.short = short
        self.placeholder = placeholder
        self.value = value
        self.defaultValue = defaultValue
        self.defaultHelp = defaultHelp
        self.environment = environment
        self.help = help
        self.sets = sets
    }

    /// A flag: an option without a value.
    static func flag(_ name: String, short: String? = nil, help: String) -> CLIOption {
        CLIOption(name, short: short, "", .flag, help: help)
    }

    /// The same option, described for another command.
    func described(_ help: String, defaultValue: String? = nil, defaultHelp: String? = nil) -> CLIOption {
        CLIOption(name, short: short, placeholder, value, default: defaultValue ?? self.defaultValue, defaultHelp: defaultHelp,
                  environment: environment, help: help, sets: sets)
    }

    /// `-m, --model FILE`.
    var label: String {
        (short.map { "-\($0), " } ?? "") + "--" + name + (placeholder.isEmpty ? "" : " " + placeholder)
    }

    /// The range as the help and the errors write it: "1 to 100".
    var rangeText: String {
        switch value {
        case .integer(let range): "\(range.lowerBound) to \(range.upperBound)"
        case .number(let range): "\(CalculatorTool.format(range.lowerBound)) to \(CalculatorTool.format(range.upperBound))"
        case .choice(let words): words.joined(separator: ", ")
        case .flag, .text: ""
        }
    }

    /// Throws unless `text` is a value of this option's kind, in its range.
    func check(_ text: String) throws(UsageError) {
        switch value {
        case .integer(let range):
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("--\(name) takes a whole number from \(rangeText), not '\(text)'.")
            }
        case .number(let range):
            guard let number = Double(text), range.contains(number) else {
                throw UsageError("--\(name) takes a number from \(rangeText), not '\(text)'.")
            }
        case .choice(let words):
            guard words.contains(text) else {
                let list = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "") : words.joined()
                throw UsageError("--\(name) takes \(list), not '\(text)'.")
            }
        case .flag, .text: break
        }
    }

    /// The option's sentence in the help, with its default.
    var sentence: String {
        var text = help.replacingOccurrences(of: "{range}", with: rangeText)
        let defaults = [environment.map { "$" + $0 }, defaultHelp ?? defaultValue].compactMap { $0 }
        let shown = defaults.isEmpty ? "" : "(default: " + defaults.joined(separator: ", else ") + ")"
        if text.contains("{default}") { return text.replacingOccurrences(of: " {default}", with: shown.isEmpty ? "" : " " + shown) }
        if !shown.isEmpty { text = (text.hasSuffix(".") ? String(text.dropLast()) : text) + " " + shown + "." }
        return text
    }

    /// The help's lines for `options`: each label in a column as wide as the longest and its
    /// sentence wrapped beside it, within `width` characters.
    static func help(_ options: [CLIOption], width: Int = 98) -> String {
        let column = (options.map(\.label.count).max() ?? 0) + 5
        return options.map { option in
            var lines: [String] = []
            var line = "  " + option.label.padding(to: column - 2)
            for word in option.sentence.split(separator: " ") {
                if line.count > column, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: column) + word
                } else {
                    line += (line.count == column ? "" : " ") + word
                }
            }
            return (lines + [line]).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `-h, --help`, which every command takes.
    static let showHelp = CLIOption.flag("help", short: "h", help: "Show this help.")
}
