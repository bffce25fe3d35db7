import Testing
import LooplTestKit
@testable import Loopl

@Suite struct ToolCallGrammarTests {
    static let tools: [ToolSpec] = [
        ToolSpec(name: "get_weather", description: "Weather for a city", parameters: GrammarCase.named("get_weather").schema),
        ToolSpec(name: "web_search", description: "Search the web", parameters: GrammarCase.named("web_search").schema),
        ToolSpec(name: "read_file", description: "Read a file", parameters: GrammarCase.named("read_file").schema),
        ToolSpec(name: "send_email", description: "Send an email", parameters: GrammarCase.named("send_email").schema),
        ToolSpec(name: "create_event", description: "Add to the calendar", parameters: GrammarCase.named("create_event").schema),
        ToolSpec(name: "now", description: "The time"),
    ]

    static func schema(of name: String) -> SchemaValidator? {
        tools.first { $0.name == name }.map { SchemaValidator(schema: $0.parameters) }
    }

    static func samples(_ grammar: Grammar, count: Int = 60, seed: UInt64 = 9) throws -> [String] {
        let gbnf = try GBNF(grammar.gbnf)
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in gbnf.sample(root: grammar.root, using: &generator) }
    }

    @Test(arguments: [false, true])
    func hermesSamplesParseBackToTheCallsTheyDescribe(parallel: Bool) throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: parallel))
        #expect(!grammar.lazy && grammar.triggerPatterns.isEmpty)
        var sawSeveral = false
        for text in try Self.samples(grammar) {
            #expect(text.hasPrefix("<tool_call>\n"))
            let result = ToolCallParser(format: .hermes).parse(text)
            // The calls as the text describes them, read without the parser.
            let described = try text.split(separator: "<tool_call>\n").map { block -> (String, JSONValue) in
                let json = try JSONValue(parsing: String(block).components(endingAt: "\n</tool_call>"))
                return (json["name"]?.stringValue ?? "", json["arguments"] ?? .null)
            }
            #expect(result.content == "", "\(text)")
            #expect(result.toolCalls.count == described.count, "\(text)")
            if !parallel { #expect(result.toolCalls.count == 1) }
            sawSeveral = sawSeveral || result.toolCalls.count > 1
            for (call, (name, arguments)) in zip(result.toolCalls, described) {
                #expect(call.name == name)
                #expect(JSONValue.object(call.arguments) == arguments)
                let validator = try #require(Self.schema(of: call.name), "undeclared tool \(call.name)")
                #expect(validator.errors(.object(call.arguments)) == [], "\(text)")
            }
        }
        #expect(sawSeveral == parallel)
    }

    /// A model that writes the line break which would separate a second call may still end its
    /// turn there; with one call allowed, nothing may follow it.
    @Test func aLineBreakAfterTheLastCallMayEndTheTurn() throws {
        let call = "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"
        let parallel = try GBNF(try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: true)).gbnf)
        #expect(parallel.matches(call) && parallel.matches(call + "\n" + call))
        #expect(parallel.matches(call + "\n") && parallel.matches(call + "\n" + call + "\n"))
        #expect(!parallel.matches(call + "\n\n") && !parallel.matches(call + "\n\n" + call))
        let single = try GBNF(try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .required, parallel: false)).gbnf)
        #expect(single.matches(call) && !single.matches(call + "\n"))
        // A family whose calls are closed by a suffix keeps its separator between calls only.
        let closed = try GBNF(try #require(try ToolCallGrammar.make(tools: Self.tools, format: .minimaxM1, choice: .required, parallel: true)).gbnf)
        let block = "<tool_calls>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_calls>"
        #expect(closed.matches(block) && !closed.matches(block + "\n"))
    }

    @Test func aNamedToolIsTheOnlyOneCalled() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .tool("web_search"), parallel: true))
        for text in try Self.samples(grammar, count: 20) {
            let calls = ToolCallParser(format: .hermes).parse(text).toolCalls
            #expect(!calls.isEmpty && calls.allSatisfy { $0.name == "web_search" }, "\(text)")
        }
    }

    @Test func autoIsLazyAndWakesOnTheFamilyTrigger() throws {
        let cases: [(String, String)] = [
            ("hermes", "Sure. <tool_call>"), ("qwen3-coder", "Let me look.\n<tool_call>"),
            ("mistral", "[TOOL_CALLS]"), ("llama3", #"{"name": ""#), ("generic", #"{"tool_calls": ["#),
            ("functionary-v3.2", "get_weather\n"), ("functionary-v3.2", "all\nSure.>>>now\n"), ("pythonic", "[now("),
            ("deepseek-r1", "<think>Hm.</think><｜tool▁calls▁begin｜>"), ("gpt-oss", "<|channel|>commentary to=functions.now"),
        ]
        for (family, output) in cases {
            let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: family),
                                                                choice: .auto, parallel: false))
            #expect(grammar.lazy)
            let regexes = try grammar.triggerPatterns.map { try Regex($0) }
            #expect(try regexes.contains { try $0.firstMatch(in: output) != nil }, "\(family): \(grammar.triggerPatterns) should match \(output)")
            #expect(try regexes.allSatisfy { try $0.firstMatch(in: "Just prose, no call.") == nil }, "\(family)")
        }
    }

    @Test func choicesWithoutAGrammarOrWithoutTools() throws {
        #expect(try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .none, parallel: false) == nil)
        #expect(try ToolCallGrammar.make(tools: [], format: .hermes, choice: .auto, parallel: false) == nil)
        let noTools = #expect(throws: LooplError.self) {
            try ToolCallGrammar.make(tools: [], format: .hermes, choice: .required, parallel: false)
        }
        #expect(noTools?.code == .invalidRequest)
        let missing = #expect(throws: LooplError.self) {
            try ToolCallGrammar.make(tools: Self.tools, format: .hermes, choice: .tool("fly"), parallel: false)
        }
        #expect(missing?.message.contains("fly") == true)
        let family = #expect(throws: LooplError.self) {
            try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "klingon"), choice: .required, parallel: false)
        }
        #expect(family?.message.contains("klingon") == true)
    }

    @Test func llama3SamplesAreOneBareJSONCall() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "llama3"),
                                                            choice: .required, parallel: false))
        for text in try Self.samples(grammar) {
            let value = try JSONValue(parsing: text)
            let name = try #require(value["name"]?.stringValue)
            let validator = try #require(Self.schema(of: name))
            #expect(validator.errors(value["parameters"] ?? .null) == [], "\(text)")
        }
    }

    /// The names of the calls a text describes, in order, read with a pattern whose first matching
    /// capture group is a call's name.
    static func names(_ pattern: String) -> @Sendable (String) throws -> [String] {
        { text in
            try text.matches(of: Regex(pattern)).map { match in
                (1..<match.output.count).lazy.compactMap { match.output[$0].substring.map(String.init) }.first ?? ""
            }
        }
    }

    static let jsonName = names(#""name"\s*:\s*"(\w+)"\s*,\s*"(?:arguments|parameters)""#)

    /// Every family with a grammar, how to read the called names without the parser, and whether
    /// its raw text values drop string constraints.
    static let families: [String: (names: @Sendable (String) throws -> [String], rawText: Bool)] = [
        "hermes": (jsonName, false), "llama3": (jsonName, false), "minimax-m1": (jsonName, false),
        "jamba": (jsonName, false), "apriel": (jsonName, false), "nemotron": (jsonName, false),
        "gigachat": (jsonName, false), "generic": (jsonName, false), "firefunction": (jsonName, false),
        "phi-4": (jsonName, false), "granite": (jsonName, false), "internlm": (jsonName, false),
        "mistral": (names(#""name"\s*:\s*"(\w+)"\s*,\s*"arguments"|\[TOOL_CALLS\](\w+)\[ARGS\]"#), false),
        "command-r7b": (names(#""tool_name"\s*:\s*"(\w+)"\s*,\s*"parameters""#), false),
        "command-r-plus": (names(#""tool_name"\s*:\s*"(\w+)"\s*,\s*"parameters""#), false),
        "pythonic": (names(#"(?:^\[|\), )(\w+)\("#), false),
        "lfm2": (names(#"(?:\|>\[|\), )(\w+)\("#), false),
        "functionary-v3.1": (names(#"<function=(\w+)>"#), false),
        "functionary-v3.2": (names(#"(?:^|>>>)(\w+)\n"#), false),
        "deepseek-r1": (names(#"function<｜tool▁sep｜>(\w+)\n"#), false),
        "deepseek-v3": (names(#"function<｜tool▁sep｜>(\w+)\n"#), false),
        "deepseek-v3.1": (names(#"<｜tool▁call▁begin｜>(\w+)<｜tool▁sep｜>"#), false),
        "gpt-oss": (names(#"to=functions\.(\w+) "#), false),
        "kimi-k2": (names(#"functions\.(\w+):"#), false),
        "solar-open": (names(#"<\|tool_call:name\|>(\w+)<"#), false),
        "apertus": ({ text in
            let list = text.dropFirst("<|tools_prefix|>".count).dropLast("<|tools_suffix|>".count)
            return try JSONValue(parsing: String(list)).arrayValue?.compactMap { $0.objectValue?.keys.first } ?? []
        }, false),
        "qwen3-coder": (names(#"<function=(\w+)>"#), true),
        "seed-oss": (names(#"<function=(\w+)>"#), true),
        "glm-4.5": (names(#"<tool_call>(\w+)\n"#), true),
        "minimax-m2": (names(#"<invoke name="(\w+)">"#), true),
        "muse": (names(#"<atem:invoke name="(\w+)">"#), true),
        "deepseek-v3.2": (names(#"<｜DSML｜invoke name="(\w+)">"#), true),
        "minicpm5": (names(#"<function name="(\w+)">"#), true),
        "hunyuan3": (names(#"<tool_call:opensource>(\w+)<tool_sep"#), true),
        "kimi-k3": (names(#"<\|open\|>call tool="(\w+)""#), true),
        "olmo3": (names(#"(?:<function_calls>\n|\)\n)(\w+)\("#), false),
        "step3": (names(#"<steptml:invoke name="(\w+)">"#), true),
        "longcat": (jsonName, false), "granite-20b-fc": (jsonName, false),
    ]

    @Test func everyFamilyWithAGrammarIsTested() {
        #expect(Set(ToolCallGrammar.families.map(\.rawValue)) == Set(Self.families.keys))
        let parsed = Set(ToolCallFormat.allCases.map(\.rawValue)).subtracting(["auto"])
        let covered = Set(ToolCallGrammar.families.map(\.rawValue)).union(ToolCallGrammar.familiesWithoutGrammar.keys.map(\.rawValue))
        #expect(parsed == covered)
    }

    /// Strings sampled from each family's grammar are read by that family's parser as exactly the
    /// calls they describe: the same names in the same order, arguments valid for the tool, no text left.
    @Test(arguments: families.keys.sorted(), [false, true])
    func samplesParseBackToTheCallsTheyDescribe(family: String, parallel: Bool) throws {
        let format = ToolCallFormat(rawValue: family)
        let entry = try #require(Self.families[family])
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: format, choice: .required, parallel: parallel))
        let parser = ToolCallParser(format: format, tools: Self.tools)
        var most = 0
        for text in try Self.samples(grammar) {
            let result = parser.parse(text)
            let described = try entry.names(text)
            #expect(result.toolCalls.map(\.name) == described, "\(text)")
            #expect(result.content == "" && result.rejected.isEmpty, "\(text)")
            most = max(most, result.toolCalls.count)
            let objects = entry.rawText || ["pythonic", "lfm2", "olmo3"].contains(family) ? nil : Self.jsonObjects(in: text)
            for call in result.toolCalls {
                if let objects { #expect(objects.contains(.object(call.arguments)), "\(text)") }
                let tool = try #require(Self.tools.first { $0.name == call.name })
                let schema = entry.rawText ? Self.withoutStringConstraints(tool.parameters) : tool.parameters
                #expect(SchemaValidator(schema: schema).errors(.object(call.arguments)) == [], "\(text)")
            }
        }
        #expect(parallel ? most > 1 || ["llama3", "gigachat", "gpt-oss"].contains(family) : most == 1, "\(family)")
    }

    /// Every JSON object that starts somewhere in the text, read without the parser.
    static func jsonObjects(in text: String) -> [JSONValue] {
        let bytes = Array(text.utf8)
        return bytes.indices.filter { bytes[$0] == UInt8(ascii: "{") }.compactMap { start in
            var cursor = ByteCursor(bytes, at: start, isFinal: true)
            return try? cursor.json()
        }
    }

    /// A thinking block before the call, optional or opened by the prompt, is read as reasoning.
    @Test(arguments: ["hermes", "mistral", "command-r7b", "seed-oss", "gpt-oss", "kimi-k3", "apertus"])
    func reasoningComesBeforeTheCall(family: String) throws {
        let format = ToolCallFormat(rawValue: family)
        for reasoning in [ToolCallGrammar.Reasoning.optional, .open] {
            let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: format, choice: .required,
                                                                parallel: false, reasoning: reasoning))
            let parser = ToolCallParser(format: format, tools: Self.tools, startsInReasoning: reasoning == .open)
            var sawReasoning = false
            for text in try Self.samples(grammar, count: 30) {
                let result = parser.parse(text)
                #expect(result.toolCalls.count == 1 && result.content == "", "\(family): \(text)")
                sawReasoning = sawReasoning || result.reasoning != nil
            }
            #expect(sawReasoning, "\(family)")
        }
    }

    @Test(arguments: [false, true])
    func qwen3CoderSamplesAreXMLCalls(parallel: Bool) throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "qwen3-coder"),
                                                            choice: .required, parallel: parallel))
        for text in try Self.samples(grammar) {
            let blocks = text.split(separator: "<tool_call>\n", omittingEmptySubsequences: true)
            #expect(parallel || blocks.count == 1)
            for block in blocks {
                var rest = Substring(block)
                #expect(rest.hasPrefix("<function="))
                rest = rest.dropFirst("<function=".count)
                let name = String(rest.prefix { $0 != ">" })
                rest = rest.dropFirst(name.count + 2)
                let tool = try #require(Self.tools.first { $0.name == name }, "\(text)")
                var arguments = JSONObject()
                while rest.hasPrefix("<parameter=") {
                    rest = rest.dropFirst("<parameter=".count)
                    let parameter = String(rest.prefix { $0 != ">" })
                    rest = rest.dropFirst(parameter.count + 2)
                    let end = try #require(rest.firstRange(of: "\n</parameter>\n"))
                    let raw = String(rest[..<end.lowerBound])
                    rest = rest[end.upperBound...]
                    let schema = tool.parameters["properties"]?[parameter]
                    let isText = schema?["type"] == "string" || (schema?["type"]?.arrayValue?.contains("string") ?? false)
                    arguments[parameter] = isText ? .string(raw) : (try? JSONValue(parsing: raw)) ?? .string(raw)
                }
                #expect(rest.hasPrefix("</function>\n</tool_call>"), "\(text)")
                // Raw text parameters keep no string constraints (as in llama.cpp); the grammar warns of that.
                let validator = SchemaValidator(schema: Self.withoutStringConstraints(tool.parameters))
                #expect(validator.errors(.object(arguments)) == [], "\(text)")
            }
        }
    }

    static func withoutStringConstraints(_ schema: JSONValue) -> JSONValue {
        guard case .object(var object) = schema, case .object(var properties)? = object["properties"] else { return schema }
        for (name, property) in properties {
            guard case .object(var p) = property, p["type"] == "string" else { continue }
            for keyword in ["minLength", "maxLength", "pattern", "format"] { p[keyword] = nil }
            properties[name] = .object(p)
        }
        object["properties"] = .object(properties)
        return .object(object)
    }

    @Test func qwen3CoderWarnsOfUnenforcedStringConstraints() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "qwen3-coder"),
                                                            choice: .required, parallel: false))
        #expect(grammar.warnings.contains { $0.contains("minLength") && $0.contains("web_search") })
        #expect(grammar.warnings.contains { $0.contains("pattern") && $0.contains("read_file") })
    }

    @Test func textWithoutADelimiterNeverHoldsIt() throws {
        var builder = GrammarBuilder()
        builder.add("root", builder.textWithout("\n</parameter>", name: "text") + #" "\n</parameter>""#)
        let gbnf = try GBNF(builder.text())
        for body in ["", "plain", "a\nb", "\n\n<", "x\n</paramete", "\n<\n</parameter", "<parameter>"] {
            #expect(gbnf.matches(body + "\n</parameter>"), "\(body.debugDescription)")
        }
        for body in ["a\n</parameter>b", "\n</parameter>"] {
            #expect(!gbnf.matches(body + "\n</parameter>"), "\(body.debugDescription)")
        }
        var generator = SeededGenerator(seed: 3)
        for _ in 0..<200 {
            let text = gbnf.sample(using: &generator)
            #expect(text.firstRange(of: "\n</parameter>")?.upperBound == text.endIndex, "\(text.debugDescription)")
        }
    }

    @Test func textWithoutHandlesRepeatedCharactersAndTrimmedEdges() throws {
        var builder = GrammarBuilder()
        let close = "<|close|>arg<|sep|>"
        builder.add("root", builder.textWithout(close, name: "text", followedBy: close, trimmed: true) + " " + Grammar.literal(close))
        let gbnf = try GBNF(builder.text())
        for body in ["", "a", "<|close|>ar", "<|<|close|", "a\nb", "<|sep|>"] {
            #expect(gbnf.matches(body + close), "\(body.debugDescription)")
        }
        for body in ["\na", "a\n", "x<|close|>arg<|sep|>", "\n"] {
            #expect(!gbnf.matches(body + close), "\(body.debugDescription)")
        }
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<200 {
            let text = gbnf.sample(using: &generator)
            #expect(text.firstRange(of: close)?.upperBound == text.endIndex, "\(text.debugDescription)")
            #expect(!text.hasPrefix("\n") && !text.dropLast(close.count).hasSuffix("\n"), "\(text.debugDescription)")
        }
    }
}

/// The backends' grammar choice: a prompt that opened a reasoning block lets the model close it first.
@Suite struct ChatPromptGrammarTests {
    @Test func anOpenedReasoningBlockIsFinishedBeforeTheCall() throws {
        let prompt = try ChatPrompt(templateSource: nil, bosText: "", eosText: "", addsBOS: false)
        let tools = [ToolSpec(name: "f", description: "", parameters: ["type": "object", "properties": [:]])]
        let options = GenerationOptions(toolChoice: .required)
        let plain = try #require(try prompt.grammar(tools: tools, options: options, promptText: "<|im_start|>assistant\n"))
        let reasoning = try #require(try prompt.grammar(tools: tools, options: options, promptText: "<|im_start|>assistant\n<think>\n"))
        #expect(!plain.gbnf.contains("</think>"))
        #expect(reasoning.gbnf.contains("</think>"))
    }
}

extension GrammarCase {
    static func named(_ name: String) -> GrammarCase {
        all.first { $0.name == name } ?? GrammarCase(name, "{}", valid: [], invalid: [])
    }
}

extension String {
    /// The text before the first `marker`, or all of it.
    func components(endingAt marker: String) -> String {
        firstRange(of: marker).map { String(self[..<$0.lowerBound]) } ?? self
    }
}
