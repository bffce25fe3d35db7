/// The whitespace a grammar lets a model write between JSON tokens, in tool calls and in
/// `json_schema` or `json_object` answers.
public enum GrammarSpacing: String, Sendable, Hashable, CaseIterable {
    /// No whitespace between JSON tokens: a call costs the fewest tokens (the default). Left a
    /// single optional space, the default model takes every one and a call costs more than a
    /// third again as many tokens.
    case compact
    /// llama.cpp's converter's rule: a space, or one or two line breaks and up to 20 spaces or tabs
    /// of indentation, for models trained on pretty-printed JSON.
    case spacious

    /// The variable that sets a `llama` backend's spacing when its section does not: how a
    /// `stdio` section's `grammarSpacing` reaches Loopl's worker.
    public static let environmentVariable = "LOOPL_GRAMMAR_SPACING"

    /// The body of the grammar's `space` rule.
    var spaceRule: String {
        switch self {
        case .compact: return #""""#
        case .spacious: return #"| " " | "\n"{1,2} [ \t]{0,20}"#
        }
    }
}
