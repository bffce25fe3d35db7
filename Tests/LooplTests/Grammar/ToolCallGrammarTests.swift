import Testing
import LooplTestKit
@testable import Loopl

@Suite struct ToolCallGrammarTests {
    static let tools: [ToolSpec] = [
        ToolSpec(name: "get_weather", description: "Weather for a city", parameters: GrammarCase.named("get_weather").schema),
        ToolSpec(name: "web_search", description: "Search the web", parameters: GrammarCase.named("web_search").schema),
        ToolSpec(name: "read_file", description: "Read a file", parameters: GrammarCase.named("read_file").schema),
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
            ("mistral", "[TOOL_CALLS]"), ("llama3", #"{"name": ""#),
        ]
        for (family, output) in cases {
            let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: family),
                                                                choice: .auto, parallel: false))
            #expect(grammar.lazy)
            let pattern = try #require(grammar.triggerPatterns.first)
            let regex = try Regex(pattern)
            #expect(try regex.firstMatch(in: output) != nil, "\(family): \(pattern) should match \(output)")
            #expect(try regex.firstMatch(in: "Just prose, no call.") == nil, "\(family)")
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

    @Test(arguments: [false, true])
    func mistralSamplesAreAToolCallsArray(parallel: Bool) throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: Self.tools, format: ToolCallFormat(rawValue: "mistral"),
                                                            choice: .required, parallel: parallel))
        for text in try Self.samples(grammar) {
            #expect(text.hasPrefix("[TOOL_CALLS]["))
            let calls = try #require(try JSONValue(parsing: String(text.dropFirst("[TOOL_CALLS]".count))).arrayValue)
            #expect(parallel ? !calls.isEmpty : calls.count == 1)
            for call in calls {
                let validator = try #require(Self.schema(of: call["name"]?.stringValue ?? ""))
                #expect(validator.errors(call["arguments"] ?? .null) == [], "\(text)")
                if let id = call["id"] { #expect(id.stringValue?.count == 9) }
            }
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
                    arguments[parameter] = isText ? .string(raw) : try JSONValue(parsing: raw)
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
