import Foundation

/// The whitespace a grammar lets a model write between JSON tokens, in tool calls and in
/// `json_schema` or `json_object` answers.
public enum GrammarSpacing: String, Sendable, Hashable, CaseIterable {
    /// No whitespace between JSON tokens. A model whose template shows spaced JSON reads such
    /// text as unusual: its calls may cost more tokens and carry worse values.
    case compact
    /// One space after each `:` and `,` between JSON tokens and none elsewhere, as `json.dumps`
    /// and most chat templates write JSON (the default): no free whitespace, and the form a model
    /// trained on such calls reads best.
    case separated
    /// llama.cpp's converter's rule: a space, or one or two line breaks and up to 20 spaces or tabs
    /// of indentation, for models trained on pretty-printed JSON.
    case spacious

    /// The variable that sets a `llama` backend's spacing when its section does not: how a
    /// `stdio` section's `grammarSpacing` reaches Loopl's worker.
    public static let environmentVariable = "LOOPL_GRAMMAR_SPACING"

    /// The body of the grammar's `space` rule.
    var spaceRule: String {
        switch self {
        case .compact, .separated: return #""""#
        case .spacious: return #"| " " | "\n"{1,2} [ \t]{0,20}"#
        }
    }

    /// A rule's body with the space after a separator written out, for ``separated``.
    func separated(_ body: String) -> String {
        guard self == .separated else { return body }
        return body.replacingOccurrences(of: #"":" space"#, with: #"": ""#).replacingOccurrences(of: #""," space"#, with: #"", ""#)
    }
}
