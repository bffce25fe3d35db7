/// Grammars for the tool-call markup of each model family, built from the declared tools.
///
/// Families: `hermes` (also used for `auto`), `llama3`, `mistral` and `qwen3-coder`.
/// For ``ToolChoice/required`` and a named tool the grammar holds from the first token, so the
/// model writes no prose before the call; for ``ToolChoice/auto`` it is lazy and wakes on the
/// family's trigger.
public enum ToolCallGrammar {
    /// The families that have a grammar.
    public static let families: [ToolCallFormat] = [
        .hermes, .llama3, .mistral, .qwen3Coder,
    ]

    /// The grammar of one call (or, when `parallel`, one or more calls) to the given tools in the
    /// family's markup; nil when `choice` is `.none` or there are no tools and the choice is `.auto`.
    public static func make(tools: [ToolSpec], format: ToolCallFormat, choice: ToolChoice,
                            parallel: Bool) throws -> Grammar? {
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
        var converter = SchemaConverter()
        let lazy = choice == .auto
        let family = format.rawValue.lowercased().replacing("-", with: "_")
        let root: String
        var patterns: [String] = []
        var tokens: [String] = []
        switch family {
        case "hermes", "auto", "qwen", "qwen2_5", "qwen3":
            let calls = try tools.map { tool in
                converter.builder.add("tool-\(tool.name)",
                                      try jsonCall(tool, argumentsKey: "arguments", converter: &converter))
            }
            let call = converter.builder.add("tool-call", #""<tool_call>\n" "# + GrammarBuilder.group(calls.joined(separator: " | ")) + #" "\n</tool_call>""#)
            root = parallel ? #"\#(call) ("\n" \#(call))*"# : call
            patterns = [Grammar.regexEscaped("<tool_call>")]
            tokens = ["<tool_call>"]
        case "llama3", "llama3_x", "llama":
            let calls = try tools.map { tool in
                converter.builder.add("tool-\(tool.name)",
                                      try jsonCall(tool, argumentsKey: "parameters", converter: &converter))
            }
            root = calls.joined(separator: " | ")
            let space = #"(?: |\n{1,2}[ \t]{0,20})?"#
            patterns = [#"^\s*(\{"# + space + #""name""# + space + ":" + space + #"")[\s\S]*$"#]
        case "mistral", "mistral_nemo":
            let calls = try tools.map { tool in
                var body = try jsonCall(tool, argumentsKey: "arguments", converter: &converter)
                body.removeLast(#" space "}""#.count)
                body += #" ( "," space "\"id\"" space ":" space "\"" [a-zA-Z0-9]{9} "\"" )? space "}""#
                return converter.builder.add("tool-\(tool.name)", body)
            }
            let call = converter.builder.add("tool-call", calls.joined(separator: " | "))
            let list = parallel ? #"\#(call) ( "," space \#(call) )*"# : call
            root = #""[TOOL_CALLS]" "[" space "# + list + #" space "]""#
            patterns = [Grammar.regexEscaped("[TOOL_CALLS]")]
            tokens = ["[TOOL_CALLS]"]
        case "qwen3_coder", "qwen3coder", "qwen3_xml", "qwen3_5":
            let calls = try tools.map { tool in
                converter.builder.add("tool-\(tool.name)", try xmlCall(tool, converter: &converter))
            }
            let call = converter.builder.add("tool-call", #""<tool_call>\n" "# + GrammarBuilder.group(calls.joined(separator: " | ")) + #" "</tool_call>""#)
            root = parallel ? #"\#(call) ("\n" \#(call))*"# : call
            patterns = [Grammar.regexEscaped("<tool_call>")]
            tokens = ["<tool_call>"]
        default:
            throw LooplError(.invalidRequest, "No tool-call grammar exists for the format `\(format.rawValue)`; the families with one are \(families.map(\.rawValue).joined(separator: ", ")).")
        }
        converter.builder.add("root", root)
        return Grammar(gbnf: converter.builder.text(), lazy: lazy,
                       triggerPatterns: lazy ? patterns : [], triggerTokens: lazy ? tokens : [],
                       warnings: converter.warnings)
    }

    /// `{"name": "NAME", "<argumentsKey>": {...}}`.
    private static func jsonCall(_ tool: ToolSpec, argumentsKey: String,
                                 converter: inout SchemaConverter) throws -> String {
        let arguments = try converter.add(schema: tool.parameters, name: "tool-\(tool.name)-args")
        return #""{" space "\"name\"" space ":" space "# + Grammar.literal(JSONValue.string(tool.name).jsonText())
            + #" "," space "# + Grammar.literal(JSONValue.string(argumentsKey).jsonText())
            + #" space ":" space "# + arguments + #" space "}""#
    }

    /// `<function=NAME>\n<parameter=P>\nVALUE\n</parameter>\n...</function>\n`: string parameters
    /// are written raw, the others as JSON.
    private static func xmlCall(_ tool: ToolSpec, converter: inout SchemaConverter) throws -> String {
        let schema = tool.parameters
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var parameters: [String] = []
        var optional: [String] = []
        for (name, propertySchema) in properties {
            let base = "tool-\(tool.name)-\(name)"
            let value: String
            if let values = propertySchema["enum"]?.arrayValue, !values.isEmpty,
               values.allSatisfy({ $0.stringValue != nil }) {
                value = values.compactMap(\.stringValue).map(Grammar.literal).joined(separator: " | ")
            } else if isStringOnly(propertySchema) || acceptsString(propertySchema) {
                for keyword in ["minLength", "maxLength", "pattern", "format"] where propertySchema[keyword] != nil {
                    converter.warn("`\(keyword)` on the raw text parameter `\(name)` of `\(tool.name)` is not enforced")
                }
                value = converter.builder.textWithout("\n</parameter>", name: "xml-text")
            } else {
                value = try converter.add(schema: propertySchema, name: base + "-value")
            }
            let rule = converter.builder.add(base, Grammar.literal("<parameter=\(name)>\n") + " "
                                             + GrammarBuilder.group(value) + " " + Grammar.literal("\n</parameter>\n"))
            if required.contains(name) { parameters.append(rule) } else { optional.append(GrammarBuilder.repetition(rule, min: 0, max: 1)) }
        }
        let body = (parameters + optional).joined(separator: " ")
        return Grammar.literal("<function=\(tool.name)>\n") + (body.isEmpty ? "" : " " + body) + " " + Grammar.literal("</function>\n")
    }

    private static func isStringOnly(_ schema: JSONValue) -> Bool {
        schema["type"]?.stringValue == "string"
    }

    /// True when some JSON type the schema allows is a string (so raw text is the safer reading).
    private static func acceptsString(_ schema: JSONValue) -> Bool {
        if let types = schema["type"]?.arrayValue { return types.contains("string") }
        for keyword in ["anyOf", "oneOf"] {
            if let alternatives = schema[keyword]?.arrayValue, alternatives.contains(where: acceptsString) { return true }
        }
        return false
    }
}
