/// The tool-call markup of every family that has a grammar, keyed by ``ToolCallFormat`` name.
extension CallMarkup {
    private static func lit(_ text: String) -> String { Grammar.literal(text) }

    /// `open`, a JSON array of calls, `close`.
    private static func jsonArray(_ open: String, _ close: String, body: CallBody = .json()) -> CallForm {
        CallForm(prefix: lit(open + "[") + " space", body: body, separator: #""," space"#, suffix: "space " + lit("]" + close))
    }

    /// `<PREFIXinvoke name="F">` calls with `<PREFIXparameter name="P">V</PREFIXparameter>` (MiniMax M2, Muse).
    private static func invoke(_ prefix: String) -> TaggedParameters {
        TaggedParameters(callOpen: { lit("<\(prefix)invoke name=\"\($0)\">\n") }, callClose: lit("</\(prefix)invoke>\n"),
                         parameterOpen: { name, _, _ in lit("<\(prefix)parameter name=\"\(name)\">") },
                         parameterClose: lit("</\(prefix)parameter>\n"), delimiter: "</\(prefix)parameter>", trimmed: true)
    }

    /// `<function=F>` calls with `<parameter=P>` tags (Qwen3-Coder, Seed-OSS).
    private static let functionTags = TaggedParameters(
        callOpen: { lit("<function=\($0)>\n") }, callClose: lit("</function>\n"),
        parameterOpen: { name, _, _ in lit("<parameter=\(name)>\n") },
        parameterClose: lit("\n</parameter>\n"), delimiter: "</parameter>")

    private static let hermesForm = CallForm(open: lit("<tool_call>\n"), body: .json(), close: lit("\n</tool_call>"),
                                             separator: lit("\n"))
    private static let mistralId = #"( "," space "\"id\"" space ":" space "\"" [a-zA-Z0-9]{9} "\"" )?"#
    private static let jsonNameStart = #"\{(?: |\n{1,2}[ \t]{0,20})?"name"(?: |\n{1,2}[ \t]{0,20})?:(?: |\n{1,2}[ \t]{0,20})?""#
    private static let deepSeek = (calls: "<｜tool▁calls▁begin｜>", call: "<｜tool▁call▁begin｜>", separator: "<｜tool▁sep｜>",
                                   callEnd: "<｜tool▁call▁end｜>", callsEnd: "<｜tool▁calls▁end｜>")
    private static let deepSeekR1 = CallMarkup(
        forms: [CallForm(prefix: lit(deepSeek.calls),
                         body: .framed(head: { lit("\(deepSeek.call)function\(deepSeek.separator)\($0)\n```json\n") },
                                       tail: lit("\n```" + deepSeek.callEnd)),
                         separator: lit("\n"), suffix: lit(deepSeek.callsEnd))],
        triggers: [.word(deepSeek.calls)])

    static let all: [String: CallMarkup] = [
        "hermes": CallMarkup(forms: [hermesForm], triggers: [.word("<tool_call>")]),
        "llama3": CallMarkup(forms: [CallForm(body: .json(argumentsKey: "parameters"), separator: nil)],
                             triggers: [.start(jsonNameStart)]),
        "pythonic": CallMarkup(forms: [CallForm(prefix: lit("["), body: .pythonic, separator: lit(", "), suffix: lit("]"))],
                               triggers: [.toolName(before: #"\["#, after: #"\("#, atStart: true)]),
        "mistral": CallMarkup(
            forms: [jsonArray("[TOOL_CALLS]", "", body: .json(after: mistralId)),
                    CallForm(body: .framed(head: { lit("[TOOL_CALLS]\($0)[ARGS]") }))],
            triggers: [.word("[TOOL_CALLS]")], thinking: ("[THINK]", "[/THINK]", "space")),
        "qwen3-coder": CallMarkup(forms: [CallForm(open: lit("<tool_call>\n"), body: .tagged(functionTags),
                                                   close: lit("</tool_call>"), separator: lit("\n"))],
                                  triggers: [.word("<tool_call>")]),
        "seed-oss": CallMarkup(forms: [CallForm(open: lit("<seed:tool_call>\n"), body: .tagged(functionTags),
                                                close: lit("</seed:tool_call>"), separator: lit("\n"))],
                               triggers: [.word("<seed:tool_call>")], thinking: ("<seed:think>", "</seed:think>", "space")),
        "glm-4.5": CallMarkup(
            forms: [CallForm(open: lit("<tool_call>"), body: .tagged(TaggedParameters(
                callOpen: { lit("\($0)\n") }, callClose: "",
                parameterOpen: { name, _, _ in lit("<arg_key>\(name)</arg_key>\n<arg_value>") },
                parameterClose: lit("</arg_value>\n"), delimiter: "</arg_value>")),
                close: lit("</tool_call>"), separator: lit("\n"))],
            triggers: [.word("<tool_call>")]),
        "minimax-m2": CallMarkup(forms: [CallForm(prefix: lit("<minimax:tool_call>\n"), body: .tagged(invoke("")),
                                                  suffix: lit("</minimax:tool_call>"))],
                                 triggers: [.word("<minimax:tool_call>")]),
        "muse": CallMarkup(forms: [CallForm(prefix: lit("<atem:function_calls>\n"), body: .tagged(invoke("atem:")),
                                            suffix: lit("</atem:function_calls>"))],
                           triggers: [.word("<atem:function_calls>", token: false)]),
        "deepseek-v3.2": CallMarkup(
            forms: [CallForm(prefix: lit("<｜DSML｜function_calls>\n"), body: .tagged(TaggedParameters(
                callOpen: { lit("<｜DSML｜invoke name=\"\($0)\">\n") }, callClose: lit("</｜DSML｜invoke>\n"),
                parameterOpen: { name, isText, _ in lit("<｜DSML｜parameter name=\"\(name)\" string=\"\(isText)\">") },
                parameterClose: lit("</｜DSML｜parameter>\n"), delimiter: "</｜DSML｜parameter>")),
                suffix: lit("</｜DSML｜function_calls>"))],
            triggers: [.word("<｜DSML｜function_calls>", token: false)]),
        "minicpm5": CallMarkup(
            forms: [CallForm(body: .tagged(TaggedParameters(
                callOpen: { lit("<function name=\"\($0)\">\n") }, callClose: lit("</function>"),
                parameterOpen: { name, _, _ in lit("<param name=\"\(name)\">") },
                parameterClose: lit("</param>\n"), delimiter: "</param>", trimmed: true)), separator: lit("\n"))],
            triggers: [.word("<function name=\"", token: false)]),
        "hunyuan3": CallMarkup(
            forms: [CallForm(prefix: lit("<tool_calls:opensource>"), body: .tagged(TaggedParameters(
                callOpen: { lit("<tool_call:opensource>\($0)<tool_sep:opensource>\n") }, callClose: lit("</tool_call:opensource>"),
                parameterOpen: { name, _, _ in lit("<arg_key:opensource>\(name)</arg_key:opensource>\n<arg_value:opensource>") },
                parameterClose: lit("</arg_value:opensource>\n"), delimiter: "</arg_value:opensource>")),
                separator: lit("\n"), suffix: lit("</tool_calls:opensource>"))],
            triggers: [.word("<tool_calls:opensource>")]),
        "kimi-k3": CallMarkup(
            forms: [CallForm(prefix: lit("<|open|>tools<|sep|>"), body: .tagged(TaggedParameters(
                callOpen: { lit("<|open|>call tool=\"\($0)\" index=\"") + #" [1-9] [0-9]? "# + lit("\"<|sep|>") },
                callClose: lit("<|close|>call<|sep|>"),
                parameterOpen: { name, isText, schema in
                    lit("<|open|>argument key=\"\(name)\" type=\"\(isText ? "string" : schema["type"]?.stringValue ?? "json")\"<|sep|>")
                },
                parameterClose: lit("<|close|>argument<|sep|>"), delimiter: "<|close|>argument<|sep|>")),
                suffix: lit("<|close|>tools<|sep|>"))],
            triggers: [.word("<|open|>tools<|sep|>", token: false)], thinking: ("<|open|>think<|sep|>", "<|close|>think<|sep|>", "space")),
        "functionary-v3.1": CallMarkup(forms: [CallForm(body: .framed(head: { lit("<function=\($0)>") }, tail: lit("</function>")))],
                                       triggers: [.word("<function=", token: false)]),
        // The prompt ends with `>>>`, so the first call starts at the name.
        "functionary-v3.2": CallMarkup(forms: [CallForm(prefix: #"">>>"?"#, body: .framed(head: { lit("\($0)\n") }), separator: lit(">>>"))],
                                       triggers: [.toolName(before: "", after: "\n", atStart: true),
                                                  .toolName(before: ">>>", after: "\n", atStart: false)]),
        "firefunction": CallMarkup(forms: [jsonArray("functools", "")], triggers: [.word("functools[", token: false)]),
        "phi-4": CallMarkup(forms: [jsonArray("<|tool_call|>", "<|/tool_call|>")], triggers: [.word("<|tool_call|>")]),
        "granite": CallMarkup(forms: [jsonArray("<|tool_call|>", "")], triggers: [.word("<|tool_call|>")]),
        "deepseek-r1": deepSeekR1,
        "deepseek-v3": deepSeekR1,
        "deepseek-v3.1": CallMarkup(
            forms: [CallForm(prefix: lit(deepSeek.calls),
                             body: .framed(head: { lit("\(deepSeek.call)\($0)\(deepSeek.separator)") }, tail: lit(deepSeek.callEnd)),
                             suffix: lit(deepSeek.callsEnd))],
            triggers: [.word(deepSeek.calls)]),
        "command-r7b": CallMarkup(
            forms: [jsonArray("<|START_ACTION|>", "<|END_ACTION|>", body: .json(
                nameKey: "tool_name", argumentsKey: "parameters",
                before: #""\"tool_call_id\"" space ":" space "\"" [0-9]{1,3} "\"" "," space"#))],
            triggers: [.word("<|START_ACTION|>")], thinking: ("<|START_THINKING|>", "<|END_THINKING|>", "space")),
        "command-r-plus": CallMarkup(forms: [jsonArray("Action: ```json\n", "\n```", body: .json(nameKey: "tool_name", argumentsKey: "parameters"))],
                                     triggers: [.word("Action:", token: false)]),
        "gpt-oss": CallMarkup(
            forms: [CallForm(body: .framed(head: { lit("<|channel|>commentary to=functions.\($0) <|constrain|>json<|message|>") },
                                           tail: lit("<|call|>")), separator: nil)],
            triggers: [.word("<|channel|>commentary to=functions.", token: false)],
            thinking: ("<|channel|>analysis<|message|>", "<|end|><|start|>assistant", "")),
        "kimi-k2": CallMarkup(
            forms: [CallForm(prefix: lit("<|tool_calls_section_begin|>"),
                             body: .framed(head: { lit("<|tool_call_begin|>functions.\($0):") + " [0-9]{1,2} " + lit("<|tool_call_argument_begin|>") },
                                           tail: lit("<|tool_call_end|>")),
                             suffix: lit("<|tool_calls_section_end|>"))],
            triggers: [.word("<|tool_calls_section_begin|>")]),
        "minimax-m1": CallMarkup(forms: [CallForm(prefix: lit("<tool_calls>\n"), body: .json(), separator: lit("\n"),
                                                  suffix: lit("\n</tool_calls>"))],
                                 triggers: [.word("<tool_calls>")]),
        "jamba": CallMarkup(forms: [jsonArray("<tool_calls>", "</tool_calls>")], triggers: [.word("<tool_calls>")]),
        "apriel": CallMarkup(forms: [jsonArray("<tool_calls>", "</tool_calls>")], triggers: [.word("<tool_calls>")]),
        "lfm2": CallMarkup(forms: [CallForm(prefix: lit("<|tool_call_start|>["), body: .pythonic, separator: lit(", "),
                                            suffix: lit("]<|tool_call_end|>"))],
                           triggers: [.word("<|tool_call_start|>")]),
        "apertus": CallMarkup(
            forms: [jsonArray("<|tools_prefix|>", "<|tools_suffix|>", body: .framed(
                head: { #""{" space "# + lit(JSONValue.string($0).jsonText()) + #" space ":" space"# }, tail: #"space "}""#))],
            triggers: [.word("<|tools_prefix|>")], thinking: ("<|inner_prefix|>", "<|inner_suffix|>", "space")),
        "nemotron": CallMarkup(forms: [jsonArray("<TOOLCALL>", "</TOOLCALL>")], triggers: [.word("<TOOLCALL>")]),
        "internlm": CallMarkup(forms: [CallForm(open: lit("<|action_start|><|plugin|>\n"), body: .json(argumentsKey: "parameters"),
                                                close: lit("<|action_end|>"), separator: lit("\n"))],
                               triggers: [.word("<|action_start|>")]),
        "generic": CallMarkup(forms: [CallForm(prefix: #""{" space "\"tool_calls\"" space ":" space "[" space"#, body: .json(),
                                               separator: #""," space"#, suffix: #"space "]" space "}""#)],
                              triggers: [.start(#"\{(?: |\n{1,2}[ \t]{0,20})?"tool_calls""#)]),
        "gigachat": CallMarkup(forms: [CallForm(prefix: lit("<|function_call|>"), body: .json(), separator: nil)],
                               triggers: [.word("<|function_call|>")]),
        "solar-open": CallMarkup(
            forms: [CallForm(prefix: lit("<|tool_calls|>"),
                             body: .framed(head: { lit("<|tool_call:begin|>") + " [a-zA-Z0-9]{1,16} " + lit("<|tool_call:name|>\($0)<|tool_call:args|>") },
                                           tail: lit("<|tool_call:end|>")),
                             suffix: lit("<|calls|>"))],
            triggers: [.word("<|tool_calls|>")]),
    ]

    /// Other names the grammar answers to, as `ToolCallFormat` names once lowercased with `_` for `-`.
    static let aliases: [String: String] = [
        "auto": "hermes", "qwen": "hermes", "qwen2_5": "hermes", "qwen3": "hermes",
        "llama3_x": "llama3", "llama": "llama3", "mistral_nemo": "mistral",
        "qwen3_coder": "qwen3-coder", "qwen3coder": "qwen3-coder", "qwen3_xml": "qwen3-coder", "qwen3_5": "qwen3-coder",
    ]

    /// The markup for a format name, or nil when the family has no grammar.
    static func named(_ format: ToolCallFormat) -> CallMarkup? {
        if let markup = all[format.rawValue] { return markup }
        let key = format.rawValue.lowercased()
        if let markup = all[key] { return markup }
        let folded = key.replacing("-", with: "_")
        if let canonical = aliases[folded] { return all[canonical] }
        return all.first { $0.key.replacing("-", with: "_") == folded }?.value
    }
}
