import Testing
import LooplTestKit
@testable import Loopl

@Suite struct JSONSchemaGrammarTests {
    @Test(arguments: GrammarCase.all)
    func acceptsValidAndRejectsInvalidInstances(_ example: GrammarCase) throws {
        // Spacious: the table's instances are written with line breaks and indentation.
        let grammar = try JSONSchemaGrammar.convert(schema: example.schema, spacing: .spacious)
        let gbnf = try GBNF(grammar.gbnf)
        let validator = SchemaValidator(schema: example.schema)
        for instance in example.valid {
            #expect(gbnf.matches(instance), "\(example.name) should accept \(instance)\n\(grammar.gbnf)")
            #expect(validator.errors(try JSONValue(parsing: instance)) == [], "the table's \(instance) is not valid")
        }
        for instance in example.invalid {
            #expect(!gbnf.matches(instance), "\(example.name) should reject \(instance)\n\(grammar.gbnf)")
        }
    }

    @Test(arguments: GrammarCase.all)
    func sampledStringsAreValidJSONForTheSchema(_ example: GrammarCase) throws {
        let grammar = try JSONSchemaGrammar.convert(schema: example.schema)
        let gbnf = try GBNF(grammar.gbnf)
        let validator = SchemaValidator(schema: example.schema)
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<40 {
            let text = gbnf.sample(using: &generator)
            #expect(gbnf.matches(text), "the sample does not match its own grammar: \(text)")
            let value = try JSONValue(parsing: text)
            #expect(validator.errors(value) == [], "\(example.name) sampled \(text)")
        }
    }

    @Test func rulesHaveTheReferenceShapes() throws {
        let grammar = try JSONSchemaGrammar.convert(schema: [
            "type": "object",
            "properties": ["a": ["type": "string"], "b": ["type": "integer"]],
            "required": ["a"],
        ], spacing: .compact)
        let lines = Set(grammar.gbnf.split(separator: "\n").map(String.init))
        #expect(grammar.root == "root")
        #expect(grammar.gbnf.hasPrefix(#"root ::= "{" space a-kv ( "," space b-kv )? space "}""#))
        #expect(lines.contains(#"a-kv ::= "\"a\"" space ":" space string"#))
        #expect(lines.contains(#"b-kv ::= "\"b\"" space ":" space integer"#))
        #expect(lines.contains(#"space ::= """#))
        #expect(!grammar.lazy && grammar.warnings.isEmpty)
    }

    @Test func optionalPropertiesAloneShareTheirTails() throws {
        let grammar = try JSONSchemaGrammar.convert(schema: [
            "type": "object", "properties": ["a": ["type": "null"], "b": ["type": "null"], "c": ["type": "null"]],
        ], spacing: .spacious)
        let gbnf = try GBNF(grammar.gbnf)
        for text in [#"{}"#, #"{"a": null}"#, #"{"b": null}"#, #"{"c": null}"#, #"{"a": null, "c": null}"#, #"{"a": null, "b": null, "c": null}"#] {
            #expect(gbnf.matches(text), "\(text)")
        }
        for text in [#"{,}"#, #"{"b": null, "a": null}"#, #"{"a": null,}"#, #"{"a": null, "a": null}"#] {
            #expect(!gbnf.matches(text), "\(text)")
        }
    }

    @Test func primitivesAtTheRoot() throws {
        let cases: [(JSONValue, String, String)] = [
            (["type": "string"], #""hi \u00e9""#, "hi"),
            (["type": "integer"], "-12", "1.5"),
            (["type": "number"], "1.5e-3", "1."),
            (["type": "boolean"], "false", "no"),
            (["type": "null"], "null", "nil"),
            (["type": ["integer", "boolean"]], "true", "\"1\""),
            (["type": "array"], "[1, \"a\", []]", "[1 2]"),
            (["type": "array", "items": ["type": "integer"]], "[1, 2]", "[1, \"2\"]"),
            (["type": "string", "format": "uuid"], "\"123e4567-e89b-12d3-a456-426614174000\"", "\"123e4567\""),
            (true, "[]", "[,]"),
        ]
        for (schema, good, bad) in cases {
            let gbnf = try GBNF(try JSONSchemaGrammar.convert(schema: schema, spacing: .spacious).gbnf)
            #expect(gbnf.matches(good), "\(schema) should accept \(good)")
            #expect(!gbnf.matches(bad), "\(schema) should reject \(bad)")
        }
    }

    @Test func integerRangesMatchExactlyTheirIntegers() throws {
        let bounds: [(Int?, Int?)] = [
            (0, 9), (1, 1), (-1, 1), (-99, -10), (-120, 35), (7, 1000), (13, 907), (100, 199), (99, 101),
            (0, nil), (5, nil), (42, nil), (-37, nil), (nil, 0), (nil, 58), (nil, -7), (nil, -250), (-1000, 1000),
        ]
        for (minimum, maximum) in bounds {
            var builder = GrammarBuilder()
            builder.add("root", IntegerRange.expression(minimum: minimum, maximum: maximum))
            let gbnf = try GBNF(builder.text())
            for n in -1100...1100 {
                let inside = (minimum.map { n >= $0 } ?? true) && (maximum.map { n <= $0 } ?? true)
                #expect((gbnf.matches(String(n)) as Bool) == inside, "\(n) in \(String(describing: minimum))...\(String(describing: maximum))")
            }
            #expect(!gbnf.matches("-0") && !gbnf.matches("007") && !gbnf.matches("+1"))
        }
    }

    @Test func numberRangesMatchExactlyTheirNumbers() throws {
        let bounds: [(Int?, Int?)] = [(0, 1), (1, 5), (-1, 1), (-20, -3), (-7, 12), (0, nil), (3, nil), (-4, nil), (nil, 0), (nil, 9), (nil, -2)]
        let texts = (-100...100).flatMap { quarter -> [String] in
            let value = Double(quarter) / 4
            var forms = [String(value)]
            if value == value.rounded() { forms.append(String(Int(value))) }
            return forms
        } + ["0.0000", "1.000", "-0.5", "0.999999", "12.0001"]
        for (minimum, maximum) in bounds {
            var schema: JSONObject = ["type": "number"]
            if let minimum { schema["minimum"] = .integer(minimum) }
            if let maximum { schema["maximum"] = .integer(maximum) }
            let grammar = try JSONSchemaGrammar.convert(schema: .object(schema))
            #expect(grammar.warnings.isEmpty)
            let gbnf = try GBNF(grammar.gbnf)
            for text in texts {
                let value = try #require(Double(text))
                let inside = (minimum.map { value >= Double($0) } ?? true) && (maximum.map { value <= Double($0) } ?? true)
                #expect(gbnf.matches(text) == inside, "\(text) in \(String(describing: minimum))...\(String(describing: maximum))")
            }
            #expect(!gbnf.matches("01") && !gbnf.matches("1.") && !gbnf.matches(".5"))
        }
    }

    @Test func fractionalNumberBoundsLoosenWithAWarning() throws {
        let grammar = try JSONSchemaGrammar.convert(schema: ["type": "number", "minimum": 0.5, "exclusiveMaximum": 2])
        #expect(grammar.warnings.contains { $0.contains("minimum") })
        #expect(grammar.warnings.contains { $0.contains("exclusiveMaximum") })
        #expect(try GBNF(grammar.gbnf).matches("7.25"))
    }

    @Test func unboundedSidesReachSixteenDigits() throws {
        var builder = GrammarBuilder()
        builder.add("root", IntegerRange.expression(minimum: 3, maximum: nil))
        let gbnf = try GBNF(builder.text())
        #expect((gbnf.matches("9999999999999999")) as Bool)
        #expect(!(gbnf.matches("99999999999999999")) as Bool)
    }

    @Test func patternsTranslateToJSONStringContents() throws {
        let cases: [(String, [String], [String])] = [
            ("^abc$", ["abc"], ["abcd", "ab"]),
            ("abc", ["abc", "xabcx"], ["ab c"]),
            ("^[a-c]+\\.txt$", ["ab.txt"], ["abtxt", "d.txt"]),
            ("^\\d{3}-\\d{4}$", ["555-1234"], ["55-1234"]),
            ("^(foo|bar)?baz$", ["baz", "foobaz"], ["fobaz"]),
            ("^[^0-9]*$", ["abc", ""], ["a1"]),
            ("^\"[a-z]\\\\$", [#"\"a\\"#], ["\"a\\"]),
            ("^a\\sb$", ["a b", #"a\tb"#], ["ab"]),
            ("^\\w+@\\w+\\.com$", ["me@x.com"], ["me@x.org"]),
            ("^.{2}$", ["ab", #"\n1"#], ["abc"]),
        ]
        for (pattern, good, bad) in cases {
            let schema: JSONValue = ["type": "string", "pattern": .string(pattern)]
            let grammar = try JSONSchemaGrammar.convert(schema: schema)
            #expect(grammar.warnings.isEmpty, "\(pattern): \(grammar.warnings)")
            let gbnf = try GBNF(grammar.gbnf)
            for text in good { #expect(gbnf.matches("\"" + text + "\""), "\(pattern) should accept \(text)\n\(grammar.gbnf)") }
            for text in bad { #expect(!gbnf.matches("\"" + text + "\""), "\(pattern) should reject \(text)\n\(grammar.gbnf)") }
        }
    }

    /// A pattern and length bounds hold together (before, a pattern made the converter drop the lengths).
    @Test func patternsCombineWithLengthBounds() throws {
        let cases: [(JSONValue, [String], [String])] = [
            (["pattern": "^[a-z][a-z0-9_]*$", "maxLength": 5], ["a", "ab_12"], ["abcdef", "1a", ""]),
            (["pattern": "^[a-z][a-z0-9_]*$", "minLength": 3, "maxLength": 4], ["abc", "a_1z"], ["ab", "abcde"]),
            (["pattern": "^\\d+$", "minLength": 2], ["12", "12345"], ["1", "1a"]),
            (["pattern": "^x-\\d{1,}-y$", "maxLength": 6], ["x-1-y", "x-12-y"], ["x-123-y", "x--y"]),
            (["pattern": "^[0-9(][-+*/%^()0-9. ]*$", "minLength": 1, "maxLength": 8], ["2+2", "(1+2)*3"], ["", "{2} + 2", "123456789"]),
            // Several parts vary, but the pattern alone stays within the bounds: nothing to narrow.
            (["pattern": "^a{1,2}b{1,2}$", "minLength": 2, "maxLength": 4], ["ab", "aabb"], ["aaabb", "b"]),
        ]
        for (keywords, good, bad) in cases {
            var schema: JSONObject = ["type": "string"]
            for (key, value) in keywords.objectValue ?? [:] { schema[key] = value }
            let grammar = try JSONSchemaGrammar.convert(schema: .object(schema))
            #expect(grammar.warnings.isEmpty, "\(schema): \(grammar.warnings)")
            let gbnf = try GBNF(grammar.gbnf)
            for text in good { #expect(gbnf.matches("\"" + text + "\""), "\(schema) should accept \(text)\n\(grammar.gbnf)") }
            for text in bad { #expect(!gbnf.matches("\"" + text + "\""), "\(schema) should reject \(text)\n\(grammar.gbnf)") }
        }
        // Two parts of varying length: the pattern holds, the lengths are named in a warning.
        let loose = try JSONSchemaGrammar.convert(schema: ["type": "string", "pattern": "^a+b+$", "maxLength": 3])
        #expect(loose.warnings.count == 1 && loose.warnings[0].contains("maxLength"), "\(loose.warnings)")
        #expect(try GBNF(loose.gbnf).matches(#""aabbb""#) && !GBNF(loose.gbnf).matches(#""ba""#))
        #expect(throws: LooplError.self) { try JSONSchemaGrammar.convert(schema: ["type": "string", "pattern": "^[a-z]{3}$", "maxLength": 2]) }
    }

    @Test func unsupportedPatternsLoosenWithAWarning() throws {
        for pattern in ["^(?=a)b$", "\\bword\\b", "(a)\\1", "^\\p{L}+$"] {
            let grammar = try JSONSchemaGrammar.convert(schema: ["type": "string", "pattern": .string(pattern)])
            #expect(grammar.warnings.count == 1 && grammar.warnings[0].contains("pattern"), "\(pattern)")
            #expect(try GBNF(grammar.gbnf).matches(#""anything""#))
        }
    }

    @Test func ignoredKeywordsAreNamedInWarnings() throws {
        let grammar = try JSONSchemaGrammar.convert(schema: [
            "type": "object",
            "properties": ["mail": ["type": "string", "format": "email"], "n": ["type": "number", "multipleOf": 2]],
            "minProperties": 1,
        ])
        #expect(grammar.warnings.contains { $0.contains("email") })
        #expect(grammar.warnings.contains { $0.contains("multipleOf") })
        #expect(grammar.warnings.contains { $0.contains("minProperties") })
    }

    @Test func unsupportedSchemasThrowNamingTheKeyword() throws {
        let cases: [(JSONValue, String)] = [
            (["type": "object", "patternProperties": ["^x": ["type": "string"]]], "patternProperties"),
            (["$ref": "https://example.com/schema.json"], "$ref"),
            (["$ref": "#/$defs/missing"], "$ref"),
            (false, "false"),
            (["type": "strin"], "strin"),
            (["type": "string", "minLength": 3, "maxLength": 2], "maxLength"),
            (["type": "integer", "minimum": 5, "maximum": 4], "minimum"),
            (["allOf": [["type": "string"], ["type": "integer"]]], "type"),
            (["type": "object", "properties": ["a": ["type": "string"]], "required": ["b"]], "b"),
            ("string", "JSON Schema"),
        ]
        for (schema, word) in cases {
            let error = #expect(throws: LooplError.self) { try JSONSchemaGrammar.convert(schema: schema) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.message.contains(word) == true, "\(schema): \(error?.message ?? "")")
        }
    }

    @Test func recursiveRootReference() throws {
        let schema: JSONValue = [
            "type": "object",
            "properties": ["name": ["type": "string"], "next": ["anyOf": [["$ref": "#"], ["type": "null"]]]],
            "required": ["name", "next"],
        ]
        let gbnf = try GBNF(try JSONSchemaGrammar.convert(schema: schema, spacing: .spacious).gbnf)
        #expect((gbnf.matches(#"{"name": "a", "next": {"name": "b", "next": null}}"#)) as Bool)
        #expect(!(gbnf.matches(#"{"name": "a", "next": {"name": "b"}}"#)) as Bool)
    }

    @Test func propertyNamesThatAreNotRuleNamesAreSanitised() throws {
        let schema: JSONValue = ["type": "object", "properties": ["é x/y": ["type": "string"], "string": ["type": "integer"]],
                                 "required": ["é x/y", "string"]]
        let grammar = try JSONSchemaGrammar.convert(schema: schema, spacing: .spacious)
        let gbnf = try GBNF(grammar.gbnf)
        #expect((gbnf.matches(#"{"é x/y": "v", "string": 1}"#)) as Bool)
        #expect(!(gbnf.matches(#"{"é x/y": "v", "string": "1"}"#)) as Bool)
    }
}

/// The `space` rule follows the spacing: compact (the default) or llama.cpp's.
@Suite struct GrammarSpacingTests {
    static let tool = ToolSpec(name: "add", description: "Add.", parameters: ["type": "object", "properties": ["a": ["type": "integer"]]])

    @Test func compactAllowsOneSpaceAndSpaciousLineBreaks() throws {
        let rules: [GrammarSpacing: String] = [.compact: #"space ::= """#, .spacious: #"space ::= | " " | "\n"{1,2} [ \t]{0,20}"#]
        for (spacing, rule) in rules {
            let grammars = [
                try ToolCallGrammar.make(tools: [Self.tool], format: .hermes, choice: .required, parallel: false, spacing: spacing),
                try ResponseFormat.jsonObject.grammar(spacing: spacing),
                try ResponseFormat.jsonSchema(["type": "object", "properties": ["a": ["type": "integer"]]]).grammar(spacing: spacing),
            ]
            for grammar in grammars {
                let lines = try #require(grammar).gbnf.split(separator: "\n").map(String.init)
                #expect(lines.contains(rule), "\(spacing): \(lines)")
            }
        }
    }

    /// The default: one space after `:` and `,`, none elsewhere, in calls and JSON answers alike.
    @Test func separatedWritesOneSpaceAfterEachSeparatorAndIsTheDefault() throws {
        let call = try GBNF(try #require(try ToolCallGrammar.make(tools: [Self.tool], format: .hermes, choice: .required, parallel: false)).gbnf)
        #expect(call.matches("<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>"))
        for text in ["<tool_call>\n{\"name\":\"add\",\"arguments\":{\"a\":1}}\n</tool_call>",
                     "<tool_call>\n{ \"name\": \"add\", \"arguments\": {\"a\": 1} }\n</tool_call>",
                     "<tool_call>\n{\"name\":  \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>"] {
            #expect(!call.matches(text), "\(text)")
        }
        let answer = try GBNF(try #require(try ResponseFormat.jsonSchema(["type": "object", "properties": ["a": ["type": "array", "items": ["type": "integer"]]]]).grammar()).gbnf)
        #expect(answer.matches("{\"a\": [1, 2]}") && !answer.matches("{\"a\":[1,2]}"))
    }

    @Test func thinkingBeforeACallMayEndWithALineBreak() throws {
        let grammar = try #require(try ToolCallGrammar.make(tools: [Self.tool], format: .hermes, choice: .required,
                                                            parallel: false, reasoning: .open))
        #expect(grammar.gbnf.contains(#"line-space ::= | " " | "\n"{1,2} [ \t]{0,20}"#))
        #expect(grammar.gbnf.contains(#""</think>" line-space"#), "\(grammar.gbnf)")
    }
}

/// The turn grammar lets calls repeat unless the request turns parallel calls off.
@Suite struct ParallelGrammarTests {
    @Test func parallelCallsRepeatTheCallRule() throws {
        let prompt = try ChatPrompt(templateSource: nil, bosText: "", eosText: "", addsBOS: false)
        var options = GenerationOptions()
        options.toolChoice = .required
        options.parallelToolCalls = true
        let tool = GrammarSpacingTests.tool
        let parallel = try #require(try prompt.grammar(tools: [tool], options: options, promptText: ""))
        options.parallelToolCalls = false
        let single = try #require(try prompt.grammar(tools: [tool], options: options, promptText: ""))
        let gbnf = [try GBNF(parallel.gbnf), try GBNF(single.gbnf)]
        let one = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>"
        #expect(gbnf[0].matches(one) && gbnf[0].matches(one + "\n" + one))
        #expect(gbnf[1].matches(one) && !gbnf[1].matches(one + "\n" + one))
    }
}
