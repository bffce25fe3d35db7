/// How one family's calls are written, as data that ``ToolCallGrammar`` turns into rules; or why
/// the family has no grammar.
enum CallGrammar: Sendable {
    /// The ways the family writes a turn's calls (the grammar accepts any of them), what wakes the
    /// lazy grammar of `.auto`, the thinking block when it is not the family's own
    /// ``ToolCallFamily/reasoning``, and other names the grammar answers to (lowercased, `_` for `-`).
    case forms([CallForm], triggers: [CallTrigger], reasoning: ToolCallFamily.Reasoning? = nil, aliases: [String] = [])
    /// No grammar, and why (a clause that follows the family's name).
    case unavailable(because: String)
}

/// One way of writing a turn's calls: `prefix`, then calls (each between `open` and `close`)
/// separated by `separator`, then `suffix`. All are GBNF expressions ("" for nothing).
struct CallForm: Sendable {
    var prefix = ""
    var open = ""
    var body: CallBody
    var close = ""
    /// Between two calls; nil when the form holds one call only.
    var separator: String? = ""
    var suffix = ""

    /// Whether the turn ends right after the calls and a line break separates them, so that the
    /// break may also follow the last call.
    var endsWithLineBreak: Bool { suffix.isEmpty && separator == Grammar.literal("\n") }
}

/// How the name and arguments of one call are written.
enum CallBody: Sendable {
    /// A JSON object `{before "NAME_KEY": "NAME", "ARGUMENTS_KEY": {...} after}`; `before` and
    /// `after` are GBNF for extra members, `before` ending and `after` starting with their comma.
    case json(nameKey: String = "name", argumentsKey: String = "arguments", before: String = "", after: String = "")
    /// `head(name)`, the arguments as a JSON object, then `tail` (GBNF).
    case framed(head: @Sendable (String) -> String, tail: String = "")
    /// Each parameter in its own tags (XML-like markup).
    case tagged(TaggedParameters)
    /// `NAME(key=value, ...)` with Python-compatible literals.
    case pythonic
}

/// The tags of a call whose parameters are written one by one (all GBNF expressions but `delimiter`).
struct TaggedParameters: Sendable {
    /// Opens the call to the named tool.
    var callOpen: @Sendable (String) -> String
    var callClose: String
    /// Opens a parameter: its name, and whether the value is written as raw text.
    var parameterOpen: @Sendable (_ name: String, _ isText: Bool, _ schema: JSONValue) -> String
    /// Closes a parameter; starts with `delimiter`.
    var parameterClose: String
    /// What ends a raw text value; the text never contains it.
    var delimiter: String
    /// Whether the parser strips a line break at either end of a raw text value, so that the text
    /// may neither start nor end with one.
    var trimmed = false
}

/// What wakes a lazy tool-call grammar.
enum CallTrigger: Sendable {
    /// `word` anywhere in the output; `token` when the word is a special token in the family's vocabulary.
    case word(String, token: Bool = true)
    /// Output that begins, after optional whitespace, with text matching `pattern` (a regular expression).
    case start(String)
    /// A declared tool's name between `before` and `after` (regular expressions), anywhere in the
    /// output or, with `atStart`, only at its beginning.
    case toolName(before: String, after: String, atStart: Bool)
}
