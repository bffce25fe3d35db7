/// Grammars for the tool-call markup of each model family, built from the declared tools.
///
/// Each family's markup is data (its ``CallGrammar``, in the family's file under
/// `ToolCalls/Families/`); this type picks
/// the tools the choice allows and assembles the rules. For ``ToolChoice/required`` and a named
/// tool the grammar holds from the first token, so the model writes no prose before the call; for
/// ``ToolChoice/auto`` it is lazy and wakes on the family's trigger.
package enum ToolCallGrammar {
    /// Whether the model writes its reasoning block before the call, under a grammar that is not lazy.
    package enum Reasoning: Sendable, Hashable {
        /// The output starts with the call.
        case none
        /// The output may start with one reasoning block in the family's markers (`<think>…</think>`
        /// unless the family has its own), then the call.
        case optional
        /// The prompt already opened reasoning: the output is reasoning up to the family's closing
        /// marker, then the call.
        case open
    }

    /// The families that have a grammar.
    package static let families: [ToolCallFormat] = ToolCallFamily.all.filter { $0.callForms != nil }.map(\.format)

    /// The families the parser knows that have no grammar, and why.
    package static let familiesWithoutGrammar: [ToolCallFormat: String] = {
        var reasons: [ToolCallFormat: String] = [:]
        for family in ToolCallFamily.all {
            if case .unavailable(let reason) = family.grammar { reasons[family.format] = reason }
        }
        return reasons
    }()

    /// The grammar of one call (or, when `parallel`, one or more calls) to the given tools in the
    /// family's markup; nil when `choice` is `.none` or there are no tools and the choice is `.auto`.
    /// `reasoning` applies to the grammars that are not lazy; `spacing` is the whitespace inside JSON
    /// (lazy grammars are always spacious).
    package static func make(tools: [ToolSpec], format: ToolCallFormat, choice: ToolChoice,
                            parallel: Bool, reasoning: Reasoning = .none, spacing: GrammarSpacing = .separated) throws -> Grammar? {
        var tools = tools
        switch choice {
        case .none: return nil
        case .auto: if tools.isEmpty { return nil }
        case .required:
            if tools.isEmpty {
                throw LooplError(.invalidRequest, "The tool choice is `required` but no tools are declared.")
            }
        case .tool(let name):
            tools = tools.filter { $0.name == name }
            if tools.isEmpty {
                throw LooplError(.invalidRequest, "The tool choice names `\(name)`, which is not among the declared tools.")
            }
        }
        guard let family = ToolCallFamily.withGrammar(named: format), let markup = family.callForms else {
            let reason = familiesWithoutGrammar[format].map { " (\($0))" } ?? ""
            throw LooplError(.invalidRequest, "No tool-call grammar exists for the format `\(format.rawValue)`\(reason); the families with one are \(families.map(\.rawValue).joined(separator: ", ")).")
        }
        // A lazy grammar replays the text its trigger matched, which the model wrote with its own
        // spacing: a grammar that refused that text would stop the engine, so it stays spacious.
        var rules = CallRules(spacing: choice == .auto ? .spacious : spacing)
        var forms: [String] = []
        for form in markup.forms {
            let calls = try tools.map { tool in
                let body = try rules.body(form.body, tool: tool)
                return rules.converter.builder.add("tool-\(tool.name)", [form.open, body, form.close].filter { !$0.isEmpty }.joined(separator: " "))
            }
            let call = rules.converter.builder.add("tool-call", calls.joined(separator: " | "))
            var list = call
            if parallel, let separator = form.separator {
                list = "\(call) " + GrammarBuilder.repetition([separator, call].filter { !$0.isEmpty }.joined(separator: " "), min: 0, max: nil)
                // A line break after the last call may still end the turn: the model need not write
                // another call because it wrote the break that would separate one.
                if form.endsWithLineBreak { list += " \(separator)?" }
            }
            forms.append([form.prefix, list, form.suffix].filter { !$0.isEmpty }.joined(separator: " "))
        }
        let lazy = choice == .auto
        var root = forms.count == 1 ? forms[0] : forms.map { "( \($0) )" }.joined(separator: " | ")
        if !lazy, reasoning != .none {
            let block = markup.reasoning
            if block.gap == "line-space" { rules.converter.builder.primitive("line-space") }
            let text = rules.converter.builder.textWithout(block.close, name: "thinking")
            let close = [Grammar.literal(block.close), block.gap].filter { !$0.isEmpty }.joined(separator: " ")
            let rule = reasoning == .open ? "\(text) \(close)" : "( \(Grammar.literal(block.open)) \(text) \(close) )?"
            root = "\(rule) \(GrammarBuilder.group(root))"
        }
        rules.converter.builder.add("root", root)
        var patterns: [String] = []
        var tokens: [String] = []
        if lazy {
            let names = "(?:" + tools.map { Grammar.regexEscaped($0.name) }.joined(separator: "|") + ")"
            for trigger in markup.triggers {
                switch trigger {
                case .word(let word, let token):
                    patterns.append(Grammar.regexEscaped(word))
                    if token { tokens.append(word) }
                case .start(let pattern):
                    patterns.append(#"^\s*("# + pattern + #")[\s\S]*$"#)
                case .toolName(let before, let after, let atStart):
                    patterns.append(atStart ? #"^\s*("# + before + names + after + #")[\s\S]*$"# : before + names + after)
                }
            }
        }
        var grammar = Grammar(gbnf: rules.converter.builder.text(), lazy: lazy, triggerPatterns: patterns,
                              triggerTokens: tokens, warnings: rules.converter.warnings)
        // The lead stops where the arguments start: the model writes their first tokens in its
        // own split, which guides the values it then picks (` {` then `"` on SmolLM2, where the
        // tokenizer would write ` {"`).
        grammar.lead = GrammarLead.text(of: grammar) { $0.hasSuffix(CallRules.argumentsSuffix) }
        return grammar
    }
}
