@testable import Loopl
import Testing

/// The forced opening of a grammar: every string the grammar allows starts with it, and it reaches
/// as far as the grammar leaves no choice.
struct GrammarLeadTests {
    static let add = ToolSpec(name: "add", description: "Add", parameters: [
        "type": "object", "required": ["a", "b"], "properties": ["a": ["type": "integer"], "b": ["type": "integer"]],
    ])

    static func call(_ tools: [ToolSpec], spacing: GrammarSpacing = .separated, parallel: Bool = false,
                     reasoning: ToolCallGrammar.Reasoning = .none, choice: ToolChoice = .required) throws -> Grammar {
        try #require(try ToolCallGrammar.make(tools: tools, format: .hermes, choice: choice, parallel: parallel,
                                              reasoning: reasoning, spacing: spacing))
    }

    @Test func aCallToOneToolLeadsUpToItsArguments() throws {
        #expect(try Self.call([Self.add]).lead == "<tool_call>\n{\"name\": \"add\", \"arguments\": ")
        #expect(try Self.call([Self.add], spacing: .compact).lead == "<tool_call>\n{\"name\":\"add\",\"arguments\":")
        #expect(try Self.call([Self.add], parallel: true).lead == "<tool_call>\n{\"name\": \"add\", \"arguments\": ")
        // Read on into the arguments, the grammar forces the first key as well.
        #expect(GrammarLead.text(of: try Self.call([Self.add])) == "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": ")
    }

    @Test func choicesEndTheLeadWhereTheyPart() throws {
        let two = [Self.add, ToolSpec(name: "now", description: "The time")]
        #expect(try Self.call(two).lead == "<tool_call>\n{\"name\": \"")
        // Free whitespace may follow the brace.
        #expect(try Self.call([Self.add], spacing: .spacious).lead == "<tool_call>\n{")
        // An optional thinking block ends the lead before it starts.
        #expect(try Self.call([Self.add], reasoning: .optional).lead == "")
        #expect(try Self.call([Self.add], reasoning: .open).lead == "")
        #expect(try Self.call([Self.add], choice: .auto).lead == "")
        #expect(try #require(try ResponseFormat.jsonSchema(Self.add.parameters).grammar()).lead == "")
    }

    @Test func repetitionsLiteralsAndClasses() {
        func lead(_ gbnf: String) -> String { GrammarLead.text(of: Grammar(gbnf: gbnf)) }
        #expect(lead("root ::= \"a\" x{3} \"\\x42\\u00e9\"\nx ::= \"b\"") == "abbbBé")
        #expect(lead("root ::= \"a\" x{2,} \"c\"\nx ::= \"b\"") == "ab")
        #expect(lead("root ::= \"a\" x? \"c\"\nx ::= \"b\"") == "a")
        #expect(lead("root ::= \"a\" [b-c] \"d\"") == "a")
        #expect(lead("root ::= (\"ab\" | \"ab\") \"c\"") == "abc")
        #expect(lead("root ::= (\"abc\" | \"abd\") \"e\"") == "ab")
        // A rule that refers to itself ends the lead there.
        #expect(lead("root ::= \"a\" root") == "a")
    }

    /// Every string that each family's grammar allows starts with the lead.
    @Test(arguments: ToolCallGrammar.families)
    func everySampleStartsWithTheLead(format: ToolCallFormat) throws {
        for parallel in [false, true] {
            for tools in [[Self.add], ToolCallGrammarTests.tools] {
                let grammar = try #require(try ToolCallGrammar.make(tools: tools, format: format, choice: .required, parallel: parallel))
                for lead in [grammar.lead, GrammarLead.text(of: grammar)] {
                    for text in try ToolCallGrammarTests.samples(grammar, count: 20) {
                        #expect(text.unicodeScalars.starts(with: lead.unicodeScalars), "\(format) lead \(lead.debugDescription), sample \(text.debugDescription)")
                    }
                }
            }
        }
    }
}
