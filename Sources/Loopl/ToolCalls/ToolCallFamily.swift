/// Everything Loopl knows about one family of tool-call markup, in one value: its name, how a chat
/// template shows it, how its text is read, and how a grammar makes a model write it.
///
/// Each family is a file of its own under `ToolCalls/Families/`, an entry of ``all`` and, when it
/// has template signs, of ``byTemplatePrecedence``.
struct ToolCallFamily: Sendable {
    /// A thinking block: `open`, the thinking, `close`.
    struct Reasoning: Sendable {
        var open: String
        var close: String
        /// What may come between the block and the call, in the grammar (GBNF).
        var gap = "line-space"
        /// Whether the block opens after visible text too (its markers are special tokens that
        /// prose never holds), so that every block is thinking, not only the first.
        var anywhere = false
    }

    /// The family's public name.
    let format: ToolCallFormat
    /// A template writes calls in this family when its source contains every string of any one
    /// group; no groups: never inferred from a template.
    let templateSigns: [[String]]
    /// Strings that start the family's markup in running text.
    let markers: [Marker]
    /// Readers of calls written without any tag, tried only at the start of the visible text.
    let startReaders: [BlockReader]
    /// Readers of bare calls so plain (Functionary's `NAME` line) that `.auto` tries them at the
    /// start of the visible text only to read calls to declared tools.
    let autoStartReaders: [BlockReader]
    /// The family's own thinking block, besides `<think>…</think>` which every family reads.
    let reasoning: Reasoning?
    /// Where thinking ends when the prompt opened it.
    let reasoningClose: String
    /// The bare markers that end thinking whose opening tag was in the prompt: `</think>`, the
    /// close of the family's own thinking block, and the family's own end of thinking.
    let reasoningEnds: [String]
    /// Whether `.auto` reads this family (not when its markers are too common in other text).
    let inAuto: Bool
    /// How the grammar writes the family's calls, or why there is none.
    let grammar: CallGrammar

    /// - Parameter reasoningEnd: the family's own marker that ends reasoning the prompt opened, when
    ///   it has no reasoning block of its own (Apriel's `[BEGIN FINAL RESPONSE]`).
    init(format: ToolCallFormat, templateSigns: [[String]] = [], markers: [Marker] = [], startReaders: [BlockReader] = [],
         autoStartReaders: [BlockReader] = [], reasoning: Reasoning? = nil, reasoningClose: String? = nil,
         reasoningEnd: String? = nil, inAuto: Bool = true, grammar: CallGrammar) {
        self.format = format
        self.templateSigns = templateSigns
        self.markers = markers
        self.startReaders = startReaders
        self.autoStartReaders = autoStartReaders
        self.reasoning = reasoning
        self.reasoningClose = reasoningClose ?? reasoning?.close ?? reasoningEnd ?? "</think>"
        reasoningEnds = ["</think>"] + [reasoning?.close, reasoningEnd].compactMap { $0 }
        self.inAuto = inAuto
        self.grammar = grammar
    }

    /// Whether a chat template's source shows this family.
    func isWritten(byTemplate source: String) -> Bool {
        templateSigns.contains { $0.allSatisfy(source.contains) }
    }

    /// The family's markers, the marker of its own thinking block and its bare closing markers.
    var markersWithReasoning: [Marker] {
        markers + (reasoning.map { [.reasoning($0.open, $0.close, anywhere: $0.anywhere)] } ?? []) + reasoningEnds.map(Marker.reasoningEnd)
    }

    /// The family's grammar with its thinking block (its own, else `<think>…</think>`); nil when it has none.
    var callForms: (forms: [CallForm], triggers: [CallTrigger], reasoning: Reasoning)? {
        guard case .forms(let forms, let triggers, let grammarReasoning, _) = grammar else { return nil }
        return (forms, triggers, grammarReasoning ?? reasoning ?? Reasoning(open: "<think>", close: "</think>"))
    }

    /// The family with a grammar that a name means: a family's name in any case and with `_` for
    /// `-`, or one of its grammar's aliases.
    static func withGrammar(named format: ToolCallFormat) -> ToolCallFamily? {
        let folded = format.rawValue.lowercased().replacing("-", with: "_")
        return all.first { family in
            guard case .forms(_, _, _, let aliases) = family.grammar else { return false }
            return family.format.rawValue.replacing("-", with: "_") == folded || aliases.contains(folded)
        }
    }
}
