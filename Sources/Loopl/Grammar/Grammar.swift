/// A GBNF grammar for llama.cpp's grammar sampler, with the triggers that wake it when it is lazy.
///
/// A grammar that is not lazy constrains generation from the first token
/// (`llama_sampler_init_grammar(vocab, gbnf, root)`). A lazy grammar lets the model write freely
/// until one of ``triggerPatterns`` matches the output or one of ``triggerTokens`` is sampled,
/// then constrains the rest (`llama_sampler_init_grammar_lazy_patterns`).
public struct Grammar: Sendable, Hashable {
    /// The rules, one `name ::= body` a line.
    public var gbnf: String
    /// The start rule's name.
    public var root: String
    /// True when the grammar waits for a trigger.
    public var lazy: Bool
    /// Regular expressions (ECMAScript, as `std::regex` reads them) matched against the whole output
    /// so far; the grammar starts at the first capture group, or at the match when there is none.
    public var triggerPatterns: [String]
    /// Texts of special tokens that trigger the grammar; the backend looks up their token ids.
    public var triggerTokens: [String]
    /// Schema keywords that were ignored because the grammar cannot express them; ignoring each one
    /// only lets the grammar accept more than the schema does.
    public var warnings: [String]
    /// The opening that every output starts with and that a backend may evaluate with the prompt
    /// instead of sampling (see ``GrammarLead``); empty when there is none to take.
    package var lead = ""

    public init(gbnf: String, root: String = "root", lazy: Bool = false, triggerPatterns: [String] = [],
                triggerTokens: [String] = [], warnings: [String] = []) {
        self.gbnf = gbnf
        self.root = root
        self.lazy = lazy
        self.triggerPatterns = triggerPatterns
        self.triggerTokens = triggerTokens
        self.warnings = warnings
    }
}

extension Grammar {
    /// A GBNF string literal for `text`: `"..."` with quotes, backslashes and control characters escaped.
    package static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += hexEscape(scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `text` with every regular-expression metacharacter escaped, for a trigger pattern.
    package static func regexEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    static func hexEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        if value <= 0xFF { return "\\x" + String(repeating: "0", count: 2 - hex.count) + hex }
        if value <= 0xFFFF { return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex }
        return "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
