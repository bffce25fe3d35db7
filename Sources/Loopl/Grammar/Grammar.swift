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
    /// Text that every output under the grammar begins with ("" when the first token is free); a
    /// backend may evaluate it with the prompt instead of generating it a token at a time.
    public var lead: String

    public init(gbnf: String, root: String = "root", lazy: Bool = false, triggerPatterns: [String] = [],
                triggerTokens: [String] = [], warnings: [String] = [], lead: String = "") {
        self.lead = lead
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

    /// The text of a GBNF expression made of string literals only ("" for none), such as
    /// `"<tool_call>\n"`; nil when it holds anything else (a rule, a class, an alternative).
    package static func text(ofLiterals expression: String) -> String? {
        var scalars = Array(expression.unicodeScalars)[...]
        var out = String.UnicodeScalarView()
        while let first = scalars.first {
            if first == " " { scalars.removeFirst(); continue }
            guard first == "\"" else { return nil }
            scalars.removeFirst()
            while true {
                guard let scalar = scalars.popFirst() else { return nil }
                if scalar == "\"" { break }
                if scalar != "\\" { out.append(scalar); continue }
                guard let escaped = scalars.popFirst(), let value = unescape(escaped, &scalars) else { return nil }
                out.append(value)
            }
        }
        return String(out)
    }

    /// The scalar a backslash and `escaped` stand for, reading hex digits from `rest`.
    private static func unescape(_ escaped: Unicode.Scalar, _ rest: inout ArraySlice<Unicode.Scalar>) -> Unicode.Scalar? {
        let simple: [Unicode.Scalar: Unicode.Scalar] = ["n": "\n", "r": "\r", "t": "\t", "\"": "\"", "\\": "\\", "[": "[", "]": "]"]
        if let value = simple[escaped] { return value }
        let digits = ["x": 2, "u": 4, "U": 8][String(escaped)]
        guard let digits, rest.count >= digits, let value = UInt32(String(String.UnicodeScalarView(rest.prefix(digits))), radix: 16) else { return nil }
        rest.removeFirst(digits)
        return Unicode.Scalar(value)
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
